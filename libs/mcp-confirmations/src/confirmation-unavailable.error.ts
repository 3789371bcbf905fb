import { DomainError } from '@app/errors';

/**
 * The confirmation store could not be read or written, so nothing may run. The MCP layer answers
 * an isError result with code `confirmation_unavailable`; `cause` keeps the database error for the
 * log line.
 */
export class ConfirmationUnavailableError extends DomainError {
  constructor(cause: unknown) {
    super(
      'confirmation_unavailable',
      'The confirmation could not be recorded (its store is unavailable), so nothing ran. Try again later.',
    );
    this.name = 'ConfirmationUnavailableError';
    this.cause = cause;
  }
}
