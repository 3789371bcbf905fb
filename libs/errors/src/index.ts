export { ERROR_STATUS, httpStatusOf, isErrorCode, type ErrorCode } from './error-codes.js';
export { DomainError, toEnvelope, type ErrorEnvelope, type FieldError } from './domain.error.js';
export {
  ApiExceptionFilter,
  mapException,
  mapRestException,
  writeClientError,
  type ApiExceptionFilterOptions,
} from './api-exception.filter.js';
