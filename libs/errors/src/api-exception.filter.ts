import {
  Catch,
  HttpException,
  Logger,
  type ArgumentsHost,
  type ExceptionFilter,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES as STATUS_CODES_TEXT } from 'node:http';
import { DomainError, toEnvelope, type ErrorEnvelope } from './domain.error.js';
import { wantsDpopChallenge } from './authentication-scheme.js';
import { httpStatusOf, type ErrorCode } from './error-codes.js';

export interface ApiExceptionFilterOptions {
  /**
   * The body a route's own protocol answers a transport refusal with (the MCP endpoint's is
   * JSON-RPC; this library knows no protocol but REST); `undefined`: the REST envelope.
   */
  transportErrorBody?: (route: string, status: number) => unknown;
  /**
   * Builds the `WWW-Authenticate` challenge for a 401 on a given path, in the `Bearer` scheme or,
   * for a refusal about a DPoP-bound token or proof, the `DPoP` scheme.
   */
  challenge: (
    path: string,
    code: 'UNAUTHENTICATED' | 'INVALID_TOKEN' | 'INVALID_DPOP_PROOF',
    scheme: 'Bearer' | 'DPoP',
  ) => string;
  /**
   * Whether an unexpected error means a dependency (the database) could not serve the request in
   * time: answered 503 SERVICE_UNAVAILABLE with `Retry-After`, not 500.
   */
  unavailable?: (exception: unknown) => boolean;
  /** `Retry-After` (seconds) on those 503s. Default 5. */
  unavailableRetryAfterSeconds?: number;
}

interface FastifyLikeError {
  statusCode?: number;
  code: string;
  message?: string;
}

/** The `FST_…` error Fastify's parsers and router throw, or `undefined` for anything else. */
function fastifyErrorOf(exception: unknown): FastifyLikeError | undefined {
  if (typeof exception !== 'object' || exception === null || !('code' in exception))
    return undefined;
  const { code } = exception;
  if (typeof code !== 'string' || !code.startsWith('FST_')) return undefined;
  return {
    code,
    statusCode:
      'statusCode' in exception && typeof exception.statusCode === 'number'
        ? exception.statusCode
        : undefined,
    message:
      'message' in exception && typeof exception.message === 'string'
        ? exception.message
        : undefined,
  };
}

/** `details.retry_after_seconds` of an envelope (RATE_LIMITED), if there is one. */
function retryAfterOf(details: unknown): unknown {
  return typeof details === 'object' && details !== null && 'retry_after_seconds' in details
    ? details.retry_after_seconds
    : undefined;
}

const FASTIFY_CODES: Record<string, { code: ErrorCode; message: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body too large' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'Unsupported media type',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'BAD_REQUEST', message: 'Request body is not valid JSON' },
  FST_ERR_CTP_JSON_TOO_DEEP: {
    code: 'BAD_REQUEST',
    message: 'Request body nests too deeply (at most 64 levels of objects and arrays)',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'BAD_REQUEST', message: 'Request body is empty' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'BAD_REQUEST', message: 'Invalid Content-Length' },
  FST_ERR_BAD_URL: { code: 'BAD_REQUEST', message: 'The URL is malformed' },
  FST_ERR_MAX_PARAM_LENGTH: {
    code: 'URI_TOO_LONG',
    message: 'A path parameter is longer than the server accepts',
  },
};

const GENERIC: Partial<Record<ErrorCode, string>> = {
  BAD_REQUEST: 'Bad request',
  NOT_FOUND: 'Route not found',
  METHOD_NOT_ALLOWED: 'Method not allowed',
  NOT_ACCEPTABLE: 'Not acceptable',
  UNSUPPORTED_MEDIA_TYPE: 'Unsupported media type',
  PAYLOAD_TOO_LARGE: 'Request body too large',
  URI_TOO_LONG: 'The URL is longer than the server accepts',
  REQUEST_TIMEOUT: 'The request took too long to arrive',
};

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  408: 'REQUEST_TIMEOUT',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  417: 'EXPECTATION_FAILED',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE',
};

const logger = new Logger('ApiExceptionFilter');

const ROUTABLE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * No route matched. A trailing slash on a path that exists without it (`POST /mcp/`) gets the
 * right path named, so the caller can fix its URL instead of guessing. The request's path is not
 * echoed (it is client input of any length); only a route the server has is named.
 */
function routeNotFound(
  request: FastifyRequest,
  path: string,
): { status: number; envelope: ErrorEnvelope } {
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed !== path && trimmed !== '') {
    const method = ROUTABLE_METHODS.find((m) => m === request.method);
    const route = `${method} ${trimmed}`;
    if (method !== undefined && request.server.hasRoute({ method, url: trimmed })) {
      return {
        status: 404,
        envelope: toEnvelope(
          'NOT_FOUND',
          `Route not found: the route is ${route}, without the trailing slash`,
          { route },
        ),
      };
    }
  }
  return { status: 404, envelope: toEnvelope('NOT_FOUND', 'Route not found') };
}

/**
 * Any exception → status + envelope: DomainError by its code; Nest and Fastify errors by their
 * status (never echoing their message, which may quote the request); anything else → 500 with a
 * generic message and the request id (logged once with stack).
 */
export function mapException(
  exception: unknown,
  requestId: string,
): { status: number; envelope: ErrorEnvelope } {
  if (exception instanceof DomainError) {
    return { status: httpStatusOf(exception.code), envelope: exception.toEnvelope() };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const code = STATUS_CODES[status];
    if (code !== undefined) {
      if (status === 503) {
        // Readiness: keep the health report for whoever is looking at a failing probe.
        return {
          status,
          envelope: toEnvelope(code, 'Service unavailable', exception.getResponse()),
        };
      }
      const message = status === 404 ? 'Route not found' : exception.message;
      return { status, envelope: toEnvelope(code, message) };
    }
  }
  const fastify = fastifyErrorOf(exception);
  if (fastify !== undefined) {
    const known = FASTIFY_CODES[fastify.code];
    if (known !== undefined)
      return {
        status: httpStatusOf(known.code),
        envelope: toEnvelope(known.code, known.message),
      };
    const status = fastify.statusCode ?? 500;
    const code = STATUS_CODES[status];
    // Fastify's own messages may quote the request (its URL, a header): never echoed.
    if (code !== undefined) return { status, envelope: toEnvelope(code, GENERIC[code] ?? code) };
  }
  logger.error({ err: exception, requestId }, 'Unhandled error');
  return {
    status: 500,
    envelope: toEnvelope(
      'INTERNAL_ERROR',
      'Internal error; quote the request id when reporting it',
      {
        requestId,
      },
    ),
  };
}

/** The one REST mapper ({@link mapException}), plus the 401 challenge, Retry-After and a route's own transport-error body. */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  constructor(private readonly options: ApiExceptionFilterOptions) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const path = (request.url ?? '').split('?')[0] ?? '';
    if (request.raw.socket.destroyed) {
      // The connection is gone: the client closed it (e.g. mid-body) or the shutdown's grace period
      // cut it. Whatever failed failed because of that, not because of the database; no answer
      // can arrive. 499 (nginx's "client closed request") is what the access log and metrics show.
      logger.log(
        {
          requestId: request.id,
          err: exception instanceof Error ? exception.message : String(exception),
        },
        'Connection closed before the request was answered; nothing sent',
      );
      void reply.status(499).send();
      return;
    }
    // The route the router matched (`/%6dcp` is `/mcp`); the path as sent when none did.
    const route = request.routeOptions?.url || path;
    const { status, envelope } = this.isRouteNotFound(exception)
      ? routeNotFound(request, path)
      : this.map(exception, request.id);

    if (status === 401) {
      const { code: refusal, details } = envelope.error;
      const code =
        refusal === 'INVALID_TOKEN' || refusal === 'INVALID_DPOP_PROOF'
          ? refusal
          : 'UNAUTHENTICATED';
      const scheme =
        code === 'INVALID_DPOP_PROOF' || wantsDpopChallenge(details) ? 'DPoP' : 'Bearer';
      void reply.header('www-authenticate', this.options.challenge(route, code, scheme));
    }
    // Every 503 says when to come back (readiness's own too), not only those that carry it.
    const retryAfter =
      retryAfterOf(envelope.error.details) ??
      (status === 503 ? (this.options.unavailableRetryAfterSeconds ?? 5) : undefined);
    if ((status === 429 || status === 503) && typeof retryAfter === 'number')
      void reply.header('retry-after', String(retryAfter));
    const body = this.options.transportErrorBody?.(route, status) ?? envelope;
    void reply.status(status).header('content-type', 'application/json').send(body);
  }

  /** The router's own 404 (no route matched), as opposed to a 404 a handler chose to answer. */
  private isRouteNotFound(exception: unknown): boolean {
    return (
      exception instanceof HttpException &&
      !(exception instanceof DomainError) &&
      exception.getStatus() === 404
    );
  }

  map(exception: unknown, requestId: string): { status: number; envelope: ErrorEnvelope } {
    return mapRestException(exception, requestId, this.options);
  }
}

/**
 * What a REST endpoint answers for an exception its handler (or a pipe or guard) threw: a
 * dependency that could not serve the request in time (`options.unavailable`) → 503
 * SERVICE_UNAVAILABLE with `retry_after_seconds`; anything else as {@link mapException} says.
 * The exception filter and the in-process dispatch of MCP tools both answer through here, so a
 * tool's error envelope is the endpoint's own.
 */
export function mapRestException(
  exception: unknown,
  requestId: string,
  options: Pick<ApiExceptionFilterOptions, 'unavailable' | 'unavailableRetryAfterSeconds'>,
): { status: number; envelope: ErrorEnvelope } {
  if (
    !(exception instanceof DomainError) &&
    !(exception instanceof HttpException) &&
    fastifyErrorOf(exception) === undefined &&
    options.unavailable?.(exception) === true
  ) {
    const seconds = options.unavailableRetryAfterSeconds ?? 5;
    // One line per request, without the stack: the cause is the dependency, not this code.
    logger.warn(
      { requestId, err: exception instanceof Error ? exception.message : String(exception) },
      'Database unavailable; answered 503',
    );
    return {
      status: 503,
      envelope: toEnvelope(
        'SERVICE_UNAVAILABLE',
        `The service cannot reach its database right now; retry after ${seconds} s`,
        { retry_after_seconds: seconds, requestId },
      ),
    };
  }
  return mapException(exception, requestId);
}

const CLIENT_ERRORS: Record<string, { status: number; code: ErrorCode; message: string }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    code: 'HEADERS_TOO_LARGE',
    message: 'The request headers are larger than the server accepts',
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    code: 'REQUEST_TIMEOUT',
    message: 'The request took too long to arrive',
  },
};
const MALFORMED = { status: 400, code: 'BAD_REQUEST', message: 'Malformed HTTP request' } as const;

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses before any route runs (headers
 * too large, a request too slow, malformed HTTP) answers with the envelope like everything else,
 * then the connection closes.
 */
export function writeClientError(
  err: Error & { code?: string },
  socket: {
    destroyed: boolean;
    writable: boolean;
    write(s: string): unknown;
    destroy(e?: Error): void;
  },
): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, code, message } = CLIENT_ERRORS[err.code ?? ''] ?? MALFORMED;
  const body = JSON.stringify(toEnvelope(code, message));
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES_TEXT[status] ?? ''}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
    );
  socket.destroy(err);
}

/**
 * Node's `checkExpectation` listener: a request whose `Expect` is not `100-continue` gets 417 in
 * the envelope (Node's own answer is a bare status line), and its body is never read.
 */
export function writeExpectationFailed(
  _request: unknown,
  response: {
    writeHead(status: number, headers: Record<string, string | number>): unknown;
    end(body: string): unknown;
  },
): void {
  const body = JSON.stringify(
    toEnvelope('EXPECTATION_FAILED', 'The only expectation this server meets is 100-continue'),
  );
  response.writeHead(417, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  response.end(body);
}
