import { applyDecorators } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  getSchemaPath,
} from '@nestjs/swagger';
import { AUTHORIZATION_CODES, ERROR_STATUS, type ErrorCode } from '@app/errors';

/** One field to fix: the shape of `details` entries for every code with field-level details. */
class ApiFieldError {
  @ApiProperty({ description: 'The input field, e.g. `email`.' })
  field: string;

  @ApiProperty({ description: 'What is wrong with it, e.g. `must be an email`.' })
  message: string;
}

class ApiErrorBody {
  @ApiProperty({ enum: Object.keys(ERROR_STATUS), description: 'Machine-readable error code.' })
  code: ErrorCode;

  @ApiProperty({ description: 'Human-readable explanation.' })
  message: string;

  @ApiPropertyOptional({
    description:
      'VALIDATION_ERROR, DUPLICATE_ERROR and CONFLICT: `[{"field","message"}]`, one entry per field to fix; ' +
      'other codes: an object of facts (authorization codes: what is missing).',
    oneOf: [
      { type: 'array', items: { $ref: getSchemaPath(ApiFieldError) } },
      { type: 'object', additionalProperties: true },
    ],
  })
  details?: ApiFieldError[] | Record<string, unknown>;
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
  'INVALID_DPOP_PROOF',
  ...AUTHORIZATION_CODES,
] as const satisfies readonly ErrorCode[];

/** Documents the error codes a route answers with, grouped by HTTP status, in the API envelope. */
export function ApiErrors(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return applyDecorators(
    ApiExtraModels(ApiErrorEnvelope, ApiFieldError),
    ...[...byStatus.entries()].map(([status, list]) =>
      ApiResponse({ status, type: ApiErrorEnvelope, description: list.join(', ') }),
    ),
  );
}
