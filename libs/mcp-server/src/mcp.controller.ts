import { Readable } from 'node:stream';
import { Controller, Delete, Get, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ChecksAccessPerOperation } from '@app/access';
import { correlationIdOf } from '@app/common';
import { DomainError } from '@app/errors';
import { Public } from '@app/access-vocabulary';
import { McpResource, RequestContext } from '@app/identity';
import { MCP_PATH } from '@app/config';
import {
  isAcceptable,
  McpEndpointService,
  userAgentProduct,
  type McpHttpRequest,
} from '@app/mcp-transport';
import type { McpCallExtra } from '@app/mcp-tools';

const JSON_MEDIA_TYPE = 'application/json';

/**
 * `POST /mcp`, both protocol eras (the JSON-RPC core is `McpEndpointService`). By the time a POST
 * reaches this adapter, the request gate has checked Origin/Host, Fastify the body size (413),
 * the global guards the bearer token (401) and the rate limits (429). Here: Accept (406), Content-Type
 * (415), then the endpoint's answer is written as it is. Uses `@Res()` because the endpoint decides
 * status, headers and body (including a bodiless 202).
 */
@ApiExcludeController()
@McpResource()
@Controller(MCP_PATH)
export class McpController {
  constructor(
    private readonly endpoint: McpEndpointService<McpCallExtra>,
    private readonly context: RequestContext,
  ) {}

  @Post()
  @ChecksAccessPerOperation()
  async post(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    const headers = singleValued(request.headers);
    if (!isAcceptable(headers.accept)) {
      throw new DomainError(
        'NOT_ACCEPTABLE',
        'This endpoint answers application/json (and text/event-stream when a call sends progress or messages first); the Accept header must allow application/json (send "Accept: application/json, text/event-stream")',
      );
    }
    if (!isJsonContentType(headers['content-type'])) {
      throw new DomainError(
        'UNSUPPORTED_MEDIA_TYPE',
        'POST /mcp takes one JSON-RPC message as Content-Type: application/json',
      );
    }
    // The app's JSON parser hands /mcp bodies over as the raw string; no body at all is "" (-32700).
    const body = typeof request.body === 'string' ? request.body : '';
    const message: McpHttpRequest = { headers, body, requestId: request.id };
    const extra: McpCallExtra = {
      principal: this.context.principal,
      requestId: message.requestId,
      correlationId: correlationIdOf(request.headers['x-request-id']),
      userAgentProduct: userAgentProduct(headers['user-agent']),
    };
    const response = await this.endpoint.handle(message, extra);
    const { stream } = response;
    if (stream === undefined) {
      await reply.status(response.status).headers(response.headers).send(response.body);
      return;
    }
    // Progress, log messages and (2025) requests to the client, then the response, as they come.
    // A client that goes away first ends the stream (2026-07-28: that cancels the request).
    // (The response's 'close': the request's own has fired once its body was read.)
    reply.raw.once('close', () => stream.close());
    await reply
      .status(response.status)
      .headers(response.headers)
      .send(Readable.from(stream.chunks, { objectMode: false }));
  }

  /**
   * No server-initiated stream (2025 GET) and no session to end (DELETE: a session id holds no
   * server state, and the transport spec lets a server refuse termination with 405), without a token.
   */
  @Public()
  @Get()
  getStream(@Res({ passthrough: true }) reply: FastifyReply): never {
    return this.methodNotAllowed(reply, 'GET');
  }

  @Public()
  @Delete()
  deleteSession(@Res({ passthrough: true }) reply: FastifyReply): never {
    return this.methodNotAllowed(reply, 'DELETE');
  }

  private methodNotAllowed(reply: FastifyReply, method: string): never {
    void reply.header('allow', 'POST');
    throw new DomainError(
      'METHOD_NOT_ALLOWED',
      `${method} /mcp is not supported: this server is stateless and opens no stream of its own; send each JSON-RPC message as a POST (its answer may stream)`,
    );
  }
}

/** Lower-cased names (Node already lower-cases them), one value each (repeats joined by ", "). */
function singleValued(raw: FastifyRequest['headers']): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(raw)) {
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const semicolon = value.indexOf(';');
  return (
    (semicolon === -1 ? value : value.slice(0, semicolon)).trim().toLowerCase() === JSON_MEDIA_TYPE
  );
}
