import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { CallerContext } from './principal.js';

export const INTERNAL_DISPATCH_HEADER = 'x-internal-dispatch';

/**
 * Hands an already-authenticated caller to an in-process REST dispatch (an MCP tool call) without
 * a second token lookup. The header carries a random single-use handle that exists only in this
 * process's memory, so an outside caller cannot forge the `mcp` channel or anyone's identity.
 */
@Injectable()
export class InternalDispatchRegistry {
  private readonly pending = new Map<string, CallerContext>();

  issue(caller: CallerContext): string {
    // 122 random bits from the CSPRNG. randomUUID draws from a pre-filled entropy buffer; a
    // randomBytes() call per dispatch cost ~15× more on the hot path (docs/benchmarks.md).
    const handle = randomUUID();
    this.pending.set(handle, caller);
    return handle;
  }

  /** Whether `handle` was issued here and not yet taken (does not use it up). */
  has(handle: string): boolean {
    return this.pending.has(handle);
  }

  /** Single use: the handle is gone after the first take. */
  take(handle: string): CallerContext | undefined {
    const caller = this.pending.get(handle);
    if (caller !== undefined) this.pending.delete(handle);
    return caller;
  }

  /** Drops a handle that was issued but never used (the dispatch failed before reaching auth). */
  release(handle: string): void {
    this.pending.delete(handle);
  }
}
