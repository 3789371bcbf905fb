import type { Era, JsonRpcId, McpResponseStream } from './mcp-endpoint.types.js';
import { ClientRequestFailed, type PendingClientRequests } from './pending-client-requests.js';

/** RFC 5424 severities as MCP names them, least severe first. */
export const LOGGING_LEVEL_ORDER = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
] as const;
export type LoggingLevel = (typeof LOGGING_LEVEL_ORDER)[number];

const LEVELS: ReadonlySet<string> = new Set(LOGGING_LEVEL_ORDER);

export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return typeof value === 'string' && LEVELS.has(value);
}

function severity(level: LoggingLevel): number {
  return LOGGING_LEVEL_ORDER.indexOf(level);
}

/**
 * What a handler may send before its result, on this request's own response stream: progress,
 * log messages and (2025 era only) requests to the client. Every message is tied to the request
 * being answered; nothing goes anywhere else. When the client cannot take a stream (its Accept did
 * not name `text/event-stream`) notifications are dropped and requests fail.
 */
export interface McpRequestChannel {
  /** The client accepts an SSE response (so messages before the result can reach it). */
  readonly canStream: boolean;
  /** `notifications/progress`, when the request carried `_meta.progressToken`. Must increase. */
  progress(progress: number, total?: number, message?: string): void;
  /**
   * `notifications/message` at `level`, when the request's log level admits it: 2026-07-28 the
   * `_meta` logLevel of this request (none: nothing is sent); 2025 the level the caller last set
   * with `logging/setLevel` on this replica (none: nothing is sent).
   */
  log(level: LoggingLevel, data: unknown, logger?: string): void;
  /**
   * 2025 era: sends a JSON-RPC request to the client on this response stream and resolves with the
   * client's result (which it POSTs back). Rejects with {@link ClientRequestFailed} in 2026-07-28
   * (answer `input_required` instead), without a stream, on the client's error, or on timeout.
   */
  request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Aborted when the client closes the response stream (2026-07-28: that is cancellation). */
  readonly signal: AbortSignal;
}

/** SSE framing of one JSON-RPC message (JSON.stringify output has no line breaks). */
function sseEvent(json: string): string {
  return `event: message\ndata: ${json}\n\n`;
}

/** A queue of SSE chunks read by the HTTP layer while the handler keeps writing. */
class SseQueue implements AsyncIterable<string> {
  private readonly chunks: string[] = [];
  private wake: (() => void) | undefined;
  private ended = false;

  push(chunk: string): void {
    if (this.ended) return;
    this.chunks.push(chunk);
    this.notify();
  }

  end(): void {
    this.ended = true;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<string> {
    for (;;) {
      const chunk = this.chunks.shift();
      if (chunk !== undefined) {
        yield chunk;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}

export interface RequestChannelOptions {
  era: Era;
  canStream: boolean;
  progressToken: JsonRpcId | undefined;
  /** The least severe level to send; undefined sends no log message at all. */
  logLevel: LoggingLevel | undefined;
  /** Who owns the call (answers to its client requests must come from the same caller). */
  owner: string;
  pending: PendingClientRequests;
  /** Called once, with the first message: from then on the response is this stream. */
  open: (stream: McpResponseStream) => void;
}

/** The {@link McpRequestChannel} of one request; the endpoint ends it with the final message. */
export class RequestChannel implements McpRequestChannel {
  private queue: SseQueue | undefined;
  private lastProgress = -Infinity;
  private readonly openRequests = new Set<string>();
  private readonly abort = new AbortController();

  constructor(private readonly options: RequestChannelOptions) {}

  get canStream(): boolean {
    return this.options.canStream;
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Whether the response already went out as a stream (the final message must follow on it). */
  get streaming(): boolean {
    return this.queue !== undefined;
  }

  progress(progress: number, total?: number, message?: string): void {
    const token = this.options.progressToken;
    if (token === undefined) return;
    if (!Number.isFinite(progress) || progress <= this.lastProgress)
      throw new Error(`progress must increase (was ${this.lastProgress}, got ${progress})`);
    this.lastProgress = progress;
    const params: Record<string, unknown> = { progressToken: token, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.send({ jsonrpc: '2.0', method: 'notifications/progress', params });
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    const threshold = this.options.logLevel;
    if (threshold === undefined || severity(level) < severity(threshold)) return;
    const params: Record<string, unknown> = { level, data };
    if (logger !== undefined) params.logger = logger;
    this.send({ jsonrpc: '2.0', method: 'notifications/message', params });
  }

  async request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (this.options.era === 'modern') {
      throw new ClientRequestFailed(
        `2026-07-28 has no server-to-client requests; answer input_required with ${method} instead`,
      );
    }
    if (!this.options.canStream || this.abort.signal.aborted) {
      throw new ClientRequestFailed(
        `${method} needs a response stream, and the client did not accept text/event-stream`,
      );
    }
    const { id, result } = this.options.pending.open(this.options.owner);
    if (id === '') return result;
    this.openRequests.add(id);
    this.send({ jsonrpc: '2.0', id, method, params });
    try {
      return await result;
    } finally {
      this.openRequests.delete(id);
    }
  }

  /** Ends the stream with the final JSON-RPC message (only when {@link streaming}). */
  finish(finalMessageJson: string): void {
    this.queue?.push(sseEvent(finalMessageJson));
    this.queue?.end();
  }

  /** The client went away: nothing more is sent, waiting client requests fail, work may stop. */
  close(): void {
    if (this.abort.signal.aborted) return;
    this.abort.abort();
    this.queue?.end();
    for (const id of this.openRequests)
      this.options.pending.abandon(id, 'The client closed the response stream');
  }

  private send(message: Record<string, unknown>): void {
    if (!this.options.canStream || this.abort.signal.aborted) return;
    if (this.queue === undefined) {
      const queue = new SseQueue();
      this.queue = queue;
      this.options.open({ chunks: queue, close: () => this.close() });
    }
    this.queue.push(sseEvent(JSON.stringify(message)));
  }
}

/**
 * A channel that reaches no client: notifications are dropped and requests fail. For handlers
 * run outside an HTTP exchange (tests, internal calls).
 */
export function detachedChannel(): McpRequestChannel {
  const abort = new AbortController();
  return {
    canStream: false,
    progress: () => undefined,
    log: () => undefined,
    request: (method) =>
      Promise.reject(new ClientRequestFailed(`${method} needs a response stream; there is none`)),
    signal: abort.signal,
  };
}
