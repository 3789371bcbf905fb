import { SetMetadata } from '@nestjs/common';

export const MCP_RESOURCE = 'identity:mcp-resource';

/**
 * Marks a controller as the MCP endpoint for bearer authentication: the resource its tokens
 * must be issued for (RFC 8707 audience) is the MCP URL, not the REST API. The route declares
 * this; the guard does not recognise paths.
 */
export const McpResource = (): ClassDecorator & MethodDecorator => SetMetadata(MCP_RESOURCE, true);
