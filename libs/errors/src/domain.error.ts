import type { ErrorCode } from './error-codes.js';

export interface FieldError {
  field: string;
  message: string;
}

/** The API error envelope: `{"error":{"code","message","details"?}}`. */
export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; details?: unknown };
}

/**
 * What domain code throws. Libraries never throw HttpException: each channel (REST, MCP tool
 * result, JSON-RPC) maps this one type exactly once.
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  static notFound(what: string): DomainError {
    return new DomainError('NOT_FOUND', `${what} not found`);
  }

  static validation(details: FieldError[], message = 'Validation failed'): DomainError {
    return new DomainError('VALIDATION_ERROR', message, details);
  }

  /**
   * A unique value is taken. `details` has the same field-level shape as VALIDATION_ERROR
   * (`[{"field","message"}]`): every code with field details uses that one array shape.
   */
  static taken(code: 'DUPLICATE_ERROR' | 'CONFLICT', field: string, message: string): DomainError {
    return new DomainError(code, message, [
      { field, message: 'is already used in this organisation' },
    ] satisfies FieldError[]);
  }

  toEnvelope(): ErrorEnvelope {
    return toEnvelope(this.code, this.message, this.details);
  }
}

export function toEnvelope(code: ErrorCode, message: string, details?: unknown): ErrorEnvelope {
  return details === undefined
    ? { error: { code, message } }
    : { error: { code, message, details } };
}
