import { applyDecorators, Delete, Get, HttpCode, Patch, Post, SetMetadata } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiExtension,
  ApiOkResponse,
  ApiOperation,
} from '@nestjs/swagger';
import { Public, requirementOf, RequiresAccess } from '@app/access-vocabulary';
import type { ErrorCode } from '@app/errors';
import { ApiErrors, AUTH_ERROR_CODES } from './api-errors.decorator.js';
import type { EndpointContract } from './endpoint-contract.js';

const ROUTE = { GET: Get, POST: Post, PATCH: Patch, DELETE: Delete } as const;

/** The OpenAPI extension carrying an operation's declared access (read by the route-table test). */
export const ACCESS_EXTENSION = 'x-access';

/** Metadata key holding the contract on its controller method (read by in-process dispatch). */
export const ENDPOINT_CONTRACT = 'rest:endpoint-contract';

/**
 * Applies an endpoint's contract to its controller method: the route (method, full path, success
 * status), its access (public, or authenticated with the scope and permission the access guard
 * enforces), and its OpenAPI operation (id, summary, success response, every error code with the
 * authentication and access codes that follow from its access, and the access as `x-access`).
 * Use it on a controller without a path prefix: the contract's path is the whole path.
 */
export function Endpoint(contract: EndpointContract): MethodDecorator {
  const { access } = contract;
  const errors: ErrorCode[] =
    access.kind === 'public' ? [...contract.errors] : [...contract.errors, ...AUTH_ERROR_CODES];
  return applyDecorators(
    ROUTE[contract.method](contract.path),
    HttpCode(contract.status),
    SetMetadata(ENDPOINT_CONTRACT, contract),
    ...(access.kind === 'public'
      ? [Public()]
      : [RequiresAccess(requirementOf(access)), ApiBearerAuth()]),
    ApiOperation({
      operationId: contract.operationId,
      summary: contract.summary,
      ...(contract.description === undefined ? {} : { description: contract.description }),
    }),
    contract.status === 201
      ? ApiCreatedResponse({ type: contract.response })
      : ApiOkResponse({ type: contract.response }),
    ApiErrors(...errors),
    ApiExtension(ACCESS_EXTENSION, access),
  );
}
