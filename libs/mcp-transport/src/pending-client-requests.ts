import { randomUUID } from 'node:crypto';
import { isJsonObject } from '@app/common';
import type { JsonRpcId } from './mcp-endpoint.types.js';

/** Why a server→client request did not get a result. */
export class ClientRequestFailed extends Error {
  constructor(
    message: string,
    /** The client's JSON-RPC error, when it answered with one. */
    readonly error?: { code: number; message: string; data?: unknown },
  ) {
    super(message);
  }
}

interface Pending {
  owner: string;
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: ClientRequestFailed) => void;
  timer: NodeJS.Timeout;
}

export type SettleVerdict = 'settled' | 'unknown';

/**
 * Server→client requests (2025 era: sampling, elicitation, roots on a POST's SSE stream) waiting
 * for the client's answer, which arrives as a separate POST carrying a JSON-RPC response.
 *
 * In process memory, keyed by an id this server generated (random, so a client cannot guess
 * another caller's) and bound to the caller that owns the waiting call: an answer from anyone
 * else is refused as unknown. The limitation is the point of the 2026 design (MRTR): an answer
 * that reaches another replica finds nothing here and is refused, and the waiting call times out.
 * Deployments that serve 2025 clients with server→client requests need sticky routing by the
 * bearer token (or one replica); docs/operations.md says so.
 */
export class PendingClientRequests {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly timeoutMs: number,
    /** A bound on concurrent waits, so answers that never come cannot exhaust memory. */
    private readonly maxPending = 1000,
  ) {
    if (!Number.isSafeInteger(timeoutMs) || timeoutMs <= 0)
      throw new Error('PendingClientRequests: timeoutMs must be a positive integer');
  }

  get size(): number {
    return this.pending.size;
  }

  /** A fresh id and the promise of the client's result for it. */
  open(owner: string): { id: string; result: Promise<Record<string, unknown>> } {
    if (this.pending.size >= this.maxPending) {
      return {
        id: '',
        result: Promise.reject(
          new ClientRequestFailed('Too many requests to clients are waiting for an answer'),
        ),
      };
    }
    const id = `srv-${randomUUID()}`;
    const result = new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ClientRequestFailed(`The client did not answer within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      timer.unref();
      this.pending.set(id, { owner, resolve, reject, timer });
    });
    return { id, result };
  }

  /** Forgets a request whose stream is gone (the answer, if it comes, is then unknown). */
  abandon(id: string, reason: string): void {
    const entry = this.pending.get(id);
    if (entry === undefined) return;
    this.pending.delete(id);
    clearTimeout(entry.timer);
    entry.reject(new ClientRequestFailed(reason));
  }

  /** Hands a client's JSON-RPC response to the call waiting for it, if `owner` is that caller's. */
  settle(owner: string, id: JsonRpcId | null, result: unknown, error: unknown): SettleVerdict {
    if (typeof id !== 'string') return 'unknown';
    const entry = this.pending.get(id);
    if (entry === undefined || entry.owner !== owner) return 'unknown';
    this.pending.delete(id);
    clearTimeout(entry.timer);
    if (isJsonObject(error)) {
      const code = typeof error.code === 'number' ? error.code : 0;
      const message = typeof error.message === 'string' ? error.message : 'error';
      entry.reject(
        new ClientRequestFailed(`The client answered with error ${code}: ${message}`, {
          code,
          message,
          data: error.data,
        }),
      );
    } else if (isJsonObject(result)) {
      entry.resolve(result);
    } else {
      entry.reject(new ClientRequestFailed('The client answered without a result object'));
    }
    return 'settled';
  }
}
