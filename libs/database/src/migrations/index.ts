import { Identity1764700000000 } from './1764700000000-identity.js';
import { RateLimits1764700050000 } from './1764700050000-rate-limits.js';
import { McpConfirmations1764700300000 } from './1764700300000-mcp-confirmations.js';
import { McpToolCalls1764700400000 } from './1764700400000-mcp-tool-calls.js';
import { Accounts1764710000000 } from './1764710000000-accounts.js';
import { PortalUsers1764710000001 } from './1764710000001-portal-users.js';
import { AuditEvents1764710000002 } from './1764710000002-audit-events.js';
import { MailOutbox1764710000003 } from './1764710000003-mail-outbox.js';
import { OAuth1764720000000 } from './1764720000000-oauth.js';
import { OAuthGrantRevocation1764720000001 } from './1764720000001-oauth-grant-revocation.js';
import { OauthTokensReadOnly1764720000100 } from './1764720000100-oauth-tokens-read-only.js';
import { AuditEventLabels1764730000000 } from './1764730000000-audit-event-labels.js';
import { AuditEventsRequestIndex1764790000000 } from './1764790000000-audit-events-request-index.js';
import { PrincipalChangeNotify1764800000000 } from './1764800000000-principal-change-notify.js';
import { AuditAdminCommand1764810000000 } from './1764810000000-audit-admin-command.js';
import { SignInAuditAndPersonalMail1764900000000 } from './1764900000000-sign-in-audit-and-personal-mail.js';
import { Dpop1764930000000 } from './1764930000000-dpop.js';
import { OauthTokensAudience1765000000000 } from './1765000000000-oauth-tokens-audience.js';
import { ToolCallCorrelationId1765000100000 } from './1765000100000-tool-call-correlation-id.js';
import { TraceIds1765200000000 } from './1765200000000-trace-ids.js';
import { PartitionHistory1765300000000 } from './1765300000000-partition-history.js';
import { ConfirmationPolicies1765400000000 } from './1765400000000-confirmation-policies.js';
import { Approvals1765500000000 } from './1765500000000-approvals.js';
import { HistoryIndexes1765600000000 } from './1765600000000-history-indexes.js';
import { VerifiedConfirmations1765700000000 } from './1765700000000-verified-confirmations.js';
import { McpTasks1765710000000 } from './1765710000000-mcp-tasks.js';
import { ToolCallApprovalId1765720000000 } from './1765720000000-tool-call-approval-id.js';
import { ApprovalDecidedVia1765810000000 } from './1765810000000-approval-decided-via.js';
import { AuditEventSequence1765900000000 } from './1765900000000-audit-event-sequence.js';
import { WriteToolPolicies1766000000000 } from './1766000000000-write-tool-policies.js';
import { ToolCallFilterValues1766100000000 } from './1766100000000-tool-call-filter-values.js';

/**
 * Every migration, in order. Raw SQL with exact `down`s; `synchronize` is never used.
 * Add new ones at the end (timestamps in their names keep the order obvious).
 */
export const MIGRATIONS = [
  Identity1764700000000,
  RateLimits1764700050000,
  McpConfirmations1764700300000,
  McpToolCalls1764700400000,
  Accounts1764710000000,
  PortalUsers1764710000001,
  AuditEvents1764710000002,
  MailOutbox1764710000003,
  OAuth1764720000000,
  OAuthGrantRevocation1764720000001,
  OauthTokensReadOnly1764720000100,
  AuditEventLabels1764730000000,
  AuditEventsRequestIndex1764790000000,
  PrincipalChangeNotify1764800000000,
  AuditAdminCommand1764810000000,
  SignInAuditAndPersonalMail1764900000000,
  Dpop1764930000000,
  OauthTokensAudience1765000000000,
  ToolCallCorrelationId1765000100000,
  TraceIds1765200000000,
  PartitionHistory1765300000000,
  ConfirmationPolicies1765400000000,
  Approvals1765500000000,
  HistoryIndexes1765600000000,
  VerifiedConfirmations1765700000000,
  McpTasks1765710000000,
  ToolCallApprovalId1765720000000,
  ApprovalDecidedVia1765810000000,
  AuditEventSequence1765900000000,
  WriteToolPolicies1766000000000,
  ToolCallFilterValues1766100000000,
];
