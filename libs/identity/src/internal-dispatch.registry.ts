import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Injectable } from '@nestjs/common';
import type { AccessRequirement } from '@app/access-vocabulary';
import type { CallerContext } from './principal.js';

export const INTERNAL_DISPATCH_HEADER = 'x-internal-dispatch';

/** A REST request this process makes to itself on behalf of an MCP call. */
export interface InProcessDispatch {
  /** The caller, authenticated by the MCP request that led here. */
  caller: CallerContext;
  /**
   * The access requirement already evaluated for this caller before dispatching (a tool's, which
   * is its route's). The access guard does not evaluate the same requirement a second time.
   */
  verified?: AccessRequirement;
}

/** What every reader of a request sees: the raw Node request (Fastify's `request.raw`). */
type RawRequest = object & { headers: IncomingHttpHeaders };

/**
 * Hands an already-authenticated caller to an in-process REST dispatch (an MCP tool call) without
 * a second token lookup. The header carries a random single-use handle that exists only in this
 * process's memory, so an outside caller cannot forge the `mcp` channel or anyone's identity.
 *
 * Whether a request is such a dispatch is decided once per request, by {@link dispatchOf} (the
 * first onRequest hook calls it): the handle is used up there and the answer remembered for the
 * request. Every other reader (authentication, both rate limits, the access guard, the access log,
 * the HTTP metrics) asks the same question and gets the same answer. A header with any other
 * value makes an ordinary outside request: authenticated, limited, logged and counted as one.
 */
@Injectable()
export class InternalDispatchRegistry {
  private readonly pending = new Map<string, InProcessDispatch>();
  private readonly decided = new WeakMap<object, InProcessDispatch | null>();

  issue(dispatch: InProcessDispatch): string {
    // 122 random bits from the CSPRNG. randomUUID draws from a pre-filled entropy buffer; a
    // randomBytes() call per dispatch cost ~15× more on the hot path (docs/benchmarks.md).
    const handle = randomUUID();
    this.pending.set(handle, dispatch);
    return handle;
  }

  /** The in-process dispatch `raw` carries, or `undefined` for an outside request. */
  dispatchOf(raw: RawRequest): InProcessDispatch | undefined {
    const known = this.decided.get(raw);
    if (known !== undefined) return known ?? undefined;
    const handle = raw.headers[INTERNAL_DISPATCH_HEADER];
    let dispatch: InProcessDispatch | null = null;
    if (typeof handle === 'string') {
      dispatch = this.pending.get(handle) ?? null;
      // Single use: a replayed handle is an outside request's header like any other.
      if (dispatch !== null) this.pending.delete(handle);
    }
    this.decided.set(raw, dispatch);
    return dispatch ?? undefined;
  }

  /** Drops a handle that was issued but never used (the dispatch failed before reaching us). */
  release(handle: string): void {
    this.pending.delete(handle);
  }
}
