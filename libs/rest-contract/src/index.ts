export { ApiValidationPipe } from './api-validation.pipe.js';
export {
  validateInput,
  fieldErrorsOf,
  type DtoClass,
  type InputLocation,
} from './validate-input.js';
export {
  decodeCursor,
  encodeCursor,
  pageRequest,
  toPage,
  CURSOR_TIMESTAMP_SQL,
  type Page,
  type PageRequest,
} from './cursor.js';
export { PageQueryDto, DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from './page-query.dto.js';
export { OptionalNotNull, Trim } from './input-decorators.js';
export { ExternalId } from './external-id.input.js';
export {
  Input,
  type InputPropertyOptions,
  type TextInputOptions,
} from './input-property.decorator.js';
export { Out } from './response-property.decorator.js';
export { DeletedOf, PageOf, type Deleted } from './response-dto.factory.js';
export { ApiErrors, ApiErrorEnvelope, AUTH_ERROR_CODES } from './api-errors.decorator.js';
export type { EndpointContract, ResponseOf, ResponsesOf } from './endpoint-contract.js';
export type { Plain } from './plain.js';
export { parseTimestamp, Timestamp, TIMESTAMP_MESSAGE } from './timestamp.js';
export { assertTimeRange, TimeRangeQueryDto, untilNotAfterSince } from './time-range-query.dto.js';
export { ACCESS_EXTENSION, ENDPOINT_CONTRACT, Endpoint } from './endpoint.decorator.js';
export {
  contains,
  equals,
  listedAs,
  newestFirstQuery,
  readListedPage,
  readNewestFirstPage,
  type Condition,
  type Listed,
  type NewestFirstSpec,
  type NewestFirstWindow,
  type PageWindow,
  type SqlQuery,
} from './newest-first-query.js';
export { responseFields, type RowOf } from './response-fields.js';
