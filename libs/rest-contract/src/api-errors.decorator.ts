import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import { ERROR_STATUS, type ErrorCode } from '@app/errors';

class ApiErrorBody {
  @ApiProperty({ enum: Object.keys(ERROR_STATUS), description: 'Machine-readable error code.' })
  code: ErrorCode;

  @ApiProperty({ description: 'Human-readable explanation.' })
  message: string;

  @ApiPropertyOptional({
    description:
      'VALIDATION_ERROR: `[{"field","message"}]`, one entry per failing constraint; authorization codes: what is missing.',
  })
  details?: unknown;
}

/** The API error envelope, `{"error":{"code","message","details"?}}`, for OpenAPI. */
export class ApiErrorEnvelope {
  @ApiProperty({ type: ApiErrorBody })
  error: ApiErrorBody;
}

/** Codes every authenticated route can answer with (authentication and the four access checks). */
export const AUTH_ERROR_CODES = [
  'UNAUTHENTICATED',
  'INVALID_TOKEN',
  'key_owner_not_member',
  'membership_inactive',
  'insufficient_scope',
  'insufficient_permission',
] as const satisfies readonly ErrorCode[];

/** Documents the error codes a route answers with, grouped by HTTP status, in the API envelope. */
export function ApiErrors(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return applyDecorators(
    ApiExtraModels(ApiErrorEnvelope),
    ...[...byStatus.entries()].map(([status, list]) =>
      ApiResponse({ status, type: ApiErrorEnvelope, description: list.join(', ') }),
    ),
  );
}
