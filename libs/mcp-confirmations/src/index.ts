export { McpConfirmationsModule } from './mcp-confirmations.module.js';
export {
  ConfirmationService,
  type AskInput,
  type AskResult,
  type InspectOutcome,
  type RedeemBinding,
  type RedeemOutcome,
  type RedemptionOutcome,
  type TamperReason,
} from './confirmation.service.js';
// The ledger itself stays inside: every other library goes through ConfirmationService.
export type { ConfirmationBinding } from './confirmation.binding.js';
export type {
  LedgerInspection,
  LedgerTransition,
  NewConfirmation,
} from './confirmation-ledger.types.js';
export { visibleStatus, type ConfirmationFilter } from './confirmation-list.query.js';
export {
  MAX_REQUEST_STATE_LENGTH,
  RequestStateCodec,
  type RequestStateClaims,
  type RequestStateVerdict,
} from './request-state.codec.js';
export { ConfirmationUnavailableError } from './confirmation-unavailable.error.js';
export {
  VERIFIED_CONFIRMATION_PATH,
  VerifiedConfirmationService,
  type OpenQuestion,
  type PageConfirmation,
  type VerifiedAskResult,
  type VerifiedCallOutcome,
  type VerifiedRedeemOutcome,
} from './verified-confirmation.service.js';
export {
  CONFIRMATION_KINDS,
  type ConfirmationMode,
  CONFIRMATION_STATUSES,
  type McpConfirmation,
  type ConfirmationStatus,
} from './mcp-confirmation.js';
export {
  CONFIRMATION_INPUT_KEY,
  elicitationRequest,
  parseAnswer,
  parseUrlAnswer,
  urlElicitationRequest,
  type UrlElicitationRequest,
  type ConfirmationAnswer,
  type ConfirmationElicitationRequest,
} from './confirmation-elicitation.util.js';
export { confirmationsListQuery } from './confirmation-list.query.js';
export {
  ConfirmationEvents,
  confirmationLabel,
  eventsOf,
  type ChangeRecorder,
  type ConfirmationEvent,
  type LedgerChange,
} from './confirmation-events.js';
