import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import {
  INTERNAL_DISPATCH_HEADER,
  InternalDispatchRegistry,
  type CallerContext,
} from '@app/identity';
import type { AccessRequirement } from '@app/access-vocabulary';
import type { HttpMethod } from './tool-definition.js';

export interface RestResponse {
  status: number;
  /** Parsed JSON body; `undefined` for an empty body (204). */
  body: unknown;
  /** The body as the endpoint serialised it (`JSON.stringify` of `body`), when there is one. */
  text?: string;
}

/**
 * Runs a REST endpoint in-process through Fastify's `inject`, so its validation, rules, error
 * envelope and audit trail run exactly as for an HTTP caller. The caller's identity travels as a
 * single-use in-memory handle (no second token lookup, and the `mcp` channel cannot be forged).
 */
@Injectable()
export class RestDispatcher {
  private fastify?: FastifyInstance;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly dispatches: InternalDispatchRegistry,
  ) {}

  async dispatch(
    caller: CallerContext,
    method: HttpMethod,
    path: string,
    options: {
      query?: Record<string, unknown>;
      body?: unknown;
      /** The route's requirement, already evaluated for `caller` (the access guard skips it). */
      verified?: AccessRequirement;
    } = {},
  ): Promise<RestResponse> {
    this.fastify ??= this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const handle = this.dispatches.issue({ caller, verified: options.verified });
    const headers: Record<string, string> = {
      [INTERNAL_DISPATCH_HEADER]: handle,
      'x-request-id': caller.requestId,
      accept: 'application/json',
    };
    let payload: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(options.body);
    }
    try {
      const res = await this.fastify.inject({
        method,
        url: path,
        query: toQuery(options.query),
        headers,
        payload,
        // The options are ours and well-formed; skip light-my-request's per-call schema check.
        validate: false,
      });
      const text = res.body;
      return text === ''
        ? { status: res.statusCode, body: undefined }
        : { status: res.statusCode, body: JSON.parse(text) as unknown, text };
    } finally {
      this.dispatches.release(handle);
    }
  }
}

/**
 * Tool arguments → query string values (arrays repeat the key; null/undefined are left out);
 * `undefined` when nothing is left, so inject builds no query string at all.
 */
function toQuery(
  query: Record<string, unknown> | undefined,
): Record<string, string | string[]> | undefined {
  if (query === undefined) return undefined;
  let out: Record<string, string | string[]> | undefined;
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    out ??= {};
    out[k] = Array.isArray(v)
      ? v.map((x) => String(x))
      : typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'
        ? String(v)
        : JSON.stringify(v);
  }
  return out;
}
