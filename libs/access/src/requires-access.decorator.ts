import { SetMetadata } from '@nestjs/common';
export { ACCESS_REQUIREMENT, RequiresAccess } from '@app/access-vocabulary';

export const ACCESS_PER_OPERATION = 'access:per-operation';

/**
 * The route runs the four checks itself, once per operation inside the request (the MCP endpoint:
 * each tools/call, resources/read, prompts/get, answered in-band). AccessGuard skips it;
 * authentication and the rate limits still apply.
 */
export const ChecksAccessPerOperation = (): MethodDecorator & ClassDecorator =>
  SetMetadata(ACCESS_PER_OPERATION, true);
