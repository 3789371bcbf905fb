import type { DtoClass } from './validate-input.js';

/**
 * One REST endpoint as a table row: the DTO classes its input is validated with and the class
 * describing its response. The MCP layer derives each tool's input and output schema from these
 * same classes (class-validator-jsonschema), so the two never drift.
 */
export interface EndpointContract {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Fastify-style path, e.g. `/v1/portal-users/:id`. */
  path: string;
  /** HTTP status of a success. */
  status: 200 | 201;
  params?: DtoClass;
  query?: DtoClass;
  body?: DtoClass;
  response: DtoClass;
}
