import type { EndpointAccess } from '@app/access-vocabulary';
import type { ErrorCode } from '@app/errors';
import type { Plain } from './plain.js';
import type { DtoClass } from './validate-input.js';

/**
 * One REST endpoint, declared once: method, path, success status, who may call it, its OpenAPI
 * operation, the DTO classes its input is validated with and the class describing its response.
 * `@Endpoint(contract)` applies it to the controller method; the MCP layer derives each tool's
 * input and output schema, and its access requirement, from the same contract, so none can drift.
 */
export interface EndpointContract {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Fastify-style path, e.g. `/v1/portal-users/:id`. */
  path: string;
  /** HTTP status of a success. */
  status: 200 | 201;
  /** Scope and permission, or why any member's token (or no token) may call it. */
  access: EndpointAccess;
  operationId: string;
  summary: string;
  /** More than the summary says, for the OpenAPI document. */
  description?: string;
  /** Error codes besides the authentication and access codes, which follow from `access`. */
  errors: readonly ErrorCode[];
  params?: DtoClass;
  query?: DtoClass;
  body?: DtoClass;
  response: DtoClass;
}

/**
 * What an endpoint answers, read from its contract: the plain JSON shape of its `response` class.
 * A controller method typed with it returns what the OpenAPI document and the MCP tool's output
 * schema say, checked by the compiler, without naming the class a second time.
 */
export type ResponseOf<C extends Pick<EndpointContract, 'response'>> = Plain<
  InstanceType<C['response']>
>;

/**
 * {@link ResponseOf} for every endpoint of a table. Every controller method under `@Endpoint(...)`
 * is typed from it, through a one-line local alias: `type Responses = ResponsesOf<typeof
 * ACCOUNTS_ENDPOINTS>` and `list(...): Promise<Responses['list']>`. The response class is named
 * once, in the table, and the compiler checks that the method returns it.
 */
export type ResponsesOf<Table extends Record<string, Pick<EndpointContract, 'response'>>> = {
  [K in keyof Table]: ResponseOf<Table[K]>;
};
