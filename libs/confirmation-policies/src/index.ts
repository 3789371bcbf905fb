export { ConfirmationPoliciesModule } from './confirmation-policies.module.js';
export { ConfirmationPolicyReaderModule } from './confirmation-policy-reader.module.js';
export { ConfirmationPolicyReader } from './confirmation-policy.reader.js';
export { CONFIRMATION_POLICY_ENDPOINTS } from './confirmation-policies.endpoints.js';
export {
  CONFIRMATION_POLICY_CHANGED_CHANNEL,
  ConfirmationPolicyCache,
} from './confirmation-policy.cache.js';
export { PolicyTools } from './policy-tools.js';
export {
  CONFIRMATION_MODES,
  POLICY_EXPIRY_MAX_SECONDS,
  POLICY_EXPIRY_MIN_SECONDS,
  type ConfirmationMode,
  type ConfirmationPolicy,
  type PolicyTool,
  type PolicyToolKind,
} from './confirmation-policy.js';
