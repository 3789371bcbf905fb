/**
 * Where an approval request stands. `pending` → `approved` / `denied` (another admin, with a
 * reason) or `expired`; `approved` → `executed` (the retry that ran it, once) or `expired`; an
 * open request asked under an older policy version → `superseded`.
 */
export const APPROVAL_STATUSES = [
  'pending',
  'approved',
  'denied',
  'expired',
  'executed',
  'superseded',
] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

/** What a request is bound to: a retry matches only a request bound to exactly this. */
export interface ApprovalBinding {
  organizationId: string;
  tokenId: string;
  /** The requester: the person whose token made the call. */
  userId: string;
  tool: string;
  argumentsDigest: string;
}

/**
 * One request for a second admin's approval of one tool call (table `mcp_approvals`), with the
 * binding it was recorded under.
 */
export interface Approval extends ApprovalBinding {
  id: string;
  requesterName: string;
  requesterEmail: string;
  arguments: Record<string, unknown>;
  targetType: string;
  targetId: string;
  /** The question, as the console shows it (record text passed through sanitizeForPrompt). */
  message: string;
  clientName: string | null;
  protocolVersion: string;
  requestId: string;
  policyVersion: number;
  expirySeconds: number;
  status: ApprovalStatus;
  createdAt: Date;
  expiresAt: Date;
  decidedAt: Date | null;
  decidedBy: string | null;
  decidedByName: string | null;
  /** Where it was decided; null for a request decided before this was recorded. */
  decidedVia: DecidedVia | null;
  /** The personal token's name, for a decision made through the API. */
  decidedTokenName: string | null;
  reason: string | null;
  executedAt: Date | null;
  executedRequestId: string | null;
  reportedAt: Date | null;
}

/** The status people see: an open request past its expiry is expired. */
export function visibleStatus(
  a: Pick<Approval, 'status' | 'expiresAt'>,
  now: Date,
): ApprovalStatus {
  return (a.status === 'pending' || a.status === 'approved') &&
    a.expiresAt.getTime() <= now.getTime()
    ? 'expired'
    : a.status;
}

/** Where an admin decides: the console's Approvals page (a session) or the API (a personal token). */
export const DECIDED_VIA = ['console', 'api'] as const;
export type DecidedVia = (typeof DECIDED_VIA)[number];

/** Who decides a request, and through what. */
export interface Decider {
  userId: string;
  name: string;
  via: DecidedVia;
  /** The personal token's name when `via` is `api`, else null. */
  tokenName: string | null;
}
