import type { ApiErrorBody } from './types.js';

/** An error the API answered with its envelope (or a network failure, as `NETWORK_ERROR`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The anti-CSRF token of the signed-in session and the organisation looked at. The API accepts
 * the session cookie only on same-origin requests that carry the token in `X-CSRF-Token`; the
 * console learns it when it loads the session (see `session.ts`).
 */
let sessionHeaders: { csrf: string; organization: string } | null = null;
export function setSessionHeaders(headers: { csrf: string; organization: string } | null): void {
  sessionHeaders = headers;
}
export function csrfToken(): string {
  return sessionHeaders?.csrf ?? '';
}

export type Query = Record<string, string | number | undefined | null>;

export function withQuery(path: string, query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  const qs = params.toString();
  return qs === '' ? path : `${path}?${qs}`;
}

function isEnvelope(body: unknown): body is ApiErrorBody {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const error = body.error;
  return typeof error === 'object' && error !== null && 'code' in error && 'message' in error;
}

/** One call to the REST API with the session cookie (same origin only) and the CSRF header. */
export async function api<T>(
  path: string,
  init: { method?: string; query?: Query; body?: unknown; signal?: AbortSignal } = {},
): Promise<T> {
  const headers = new Headers({ accept: 'application/json' });
  if (sessionHeaders !== null) {
    headers.set('x-csrf-token', sessionHeaders.csrf);
    headers.set('x-organization-id', sessionHeaders.organization);
  }
  if (init.body !== undefined) headers.set('content-type', 'application/json');
  let res: Response;
  try {
    res = await fetch(withQuery(path, init.query), {
      method: init.method ?? 'GET',
      headers,
      credentials: 'same-origin',
      cache: 'no-store',
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.signal,
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new ApiError(0, 'NETWORK_ERROR', 'The server did not answer. Check your connection.');
  }
  const body: unknown = await res.json().catch(() => undefined);
  if (!res.ok) {
    if (isEnvelope(body)) throw new ApiError(res.status, body.error.code, body.error.message);
    throw new ApiError(res.status, 'HTTP_ERROR', `The server answered ${res.status}.`);
  }
  // oxlint-disable-next-line typescript/no-unsafe-type-assertion -- the API's response DTOs (OpenAPI) are the contract these types mirror
  return body as T;
}

export function isAbort(err: unknown): boolean {
  return err instanceof DOMException && err.name === 'AbortError';
}
