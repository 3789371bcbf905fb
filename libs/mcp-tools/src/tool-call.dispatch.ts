import type { Logger } from '@nestjs/common';
import type { CallerContext } from '@app/identity';
import { inSpanAsync } from '@app/tracing';
import type { RestDispatcher, RestResponse } from './rest-dispatcher.js';
import { pathValuesOf, type CompiledTool } from './tool-catalog.js';

/*
 * A registry tool's call as a request to its own REST endpoint, in-process: the path parameters
 * from the arguments, the rest as the query (GET, DELETE) or the body, in a dispatch span named
 * by the route's template. An unexpected failure of the endpoint is logged here and never reaches
 * the MCP caller as text.
 */

/** The child of a `tools/call` span that dispatches it (followed by method and route template). */
const SPAN_DISPATCH = 'mcp.dispatch';

/** Thrown by the REST layer for an unexpected failure: the MCP caller gets -32603, never the text. */
class UpstreamInternalError extends Error {}

/**
 * Dispatches a call whose checks passed; the REST answer as it is, but for a 5xx other than 502
 * and 503, logged (on `logger`) and thrown as an internal error.
 */
export async function dispatchTool(
  dispatcher: RestDispatcher,
  logger: Logger,
  tool: CompiledTool,
  args: Record<string, unknown>,
  caller: CallerContext,
): Promise<RestResponse> {
  const { endpoint } = tool.def;
  const params = pathValuesOf(tool.pathParams, args);
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) {
    if (tool.pathParams.includes(k)) continue;
    rest[k] = v;
  }
  const method = endpoint.method;
  const response = await inSpanAsync(`${SPAN_DISPATCH} ${method} ${endpoint.path}`, () =>
    dispatcher.dispatch(caller, endpoint, {
      params,
      // The access checks ran in `run` for this caller and this requirement, the route's own.
      verified: tool.access,
      ...(method === 'GET' || method === 'DELETE' ? { query: rest } : { body: rest }),
    }),
  );
  if (response.status >= 500 && response.status !== 502 && response.status !== 503) {
    logger.error(
      { requestId: caller.requestId, status: response.status, tool: tool.def.name },
      'REST endpoint failed',
    );
    throw new UpstreamInternalError(`REST ${method} ${endpoint.path} answered ${response.status}`);
  }
  return response;
}
