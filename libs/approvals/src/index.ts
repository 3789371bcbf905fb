export { ApprovalsModule } from './approvals.module.js';
export { ApprovalRequestsModule } from './approval-requests.module.js';
export {
  ApprovalRequests,
  type ApprovalCall,
  type ApprovalOutcome,
  type TaskApprovalCall,
  type TaskApprovalOutcome,
  type Withdrawal,
} from './approval-requests.service.js';
export { APPROVAL_ENDPOINTS } from './approvals.endpoints.js';
export {
  APPROVAL_STATUSES,
  visibleStatus as visibleApprovalStatus,
  type Approval,
  type ApprovalStatus,
  DECIDED_VIA,
  type DecidedVia,
} from './approval.js';
