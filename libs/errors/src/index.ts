export {
  APPROVAL_REFUSAL_CODES,
  AUTHORIZATION_CODES,
  CONFIRMATION_REFUSAL_CODES,
  ERROR_STATUS,
  httpStatusOf,
  isErrorCode,
  TOOL_RESULT_CODES,
  type ErrorCode,
  type ToolResultCode,
} from './error-codes.js';
export { DomainError, toEnvelope, type ErrorEnvelope, type FieldError } from './domain.error.js';
export {
  ApiExceptionFilter,
  mapException,
  mapRestException,
  writeClientError,
  writeExpectationFailed,
  type ApiExceptionFilterOptions,
} from './api-exception.filter.js';
export { DPOP_SCHEME_DETAILS, wantsDpopChallenge } from './authentication-scheme.js';
