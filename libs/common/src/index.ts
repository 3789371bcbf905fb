/**
 * The leaf every library may import: small, dependency-free helpers that would otherwise be
 * copied into each library that needs them. Nothing here knows about Nest, HTTP, SQL or MCP.
 */
export { unreachable } from './unreachable.js';
export { isJsonObject } from './json-object.js';
