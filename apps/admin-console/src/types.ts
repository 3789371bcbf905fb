import type { ToolCallFields } from '../../../libs/mcp-history/src/tool-call-fields.js';

/**
 * The REST API's shapes as the console reads them (see `GET /v1/openapi.json`). Where the server
 * declares a shape in a file that imports nothing, the console takes that declaration.
 */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

export interface ApiErrorBody {
  error: { code: string; message: string; details?: unknown };
}

export interface Me {
  person: { id: string; email: string; name: string };
  organization: { id: string; slug: string; name: string };
  membership: { role: string; status: string; permissions: string[] };
}

/** A call as `GET /v1/mcp/tool-calls` answers it: the server's own declaration of its fields. */
export type ToolCall = ToolCallFields<string>;

export interface Change {
  before: unknown;
  after: unknown;
}

export interface AuditEvent {
  id: string;
  occurred_at: string;
  actor_type: string;
  actor_user_id: string | null;
  /** Present once the audit trail carries names (as they were at the time). */
  actor_name?: string | null;
  actor_email?: string | null;
  token_id: string | null;
  token_name?: string | null;
  token_kind?: string | null;
  resource_label?: string | null;
  channel: string;
  client_name: string | null;
  action: string;
  resource_type: string;
  resource_id: string;
  changes: Record<string, Change>;
  request_id: string | null;
  confirmation_id: string | null;
}

export interface Confirmation {
  id: string;
  tool: string;
  status: string;
  target_type: string;
  target_id: string;
  message: string;
  protocol_version: string;
  client_name: string | null;
  user_id: string;
  token_id: string;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  tool_call_id: string | null;
  mode: 'form' | 'verified';
  policy_version: number;
  verified_at: string | null;
}

export interface ConfirmationDetail extends Confirmation {
  tool_call: ToolCall | null;
  audit_events: AuditEvent[];
}

/** An approval request as a chain: asked → decided (by whom, where, why) → what ran. */
export interface ApprovalChain {
  id: string;
  status: string;
  expires_at: string;
  requested: { at: string; user_id: string; name: string; client_name: string | null };
  decided: {
    decision: 'approved' | 'denied';
    at: string;
    user_id: string;
    name: string | null;
    reason: string | null;
    on: string;
  } | null;
  executed: { at: string; request_id: string; tool_call_id: string | null } | null;
}

export interface ToolCallDetail extends ToolCall {
  approval: ApprovalChain | null;
  confirmation: Confirmation | null;
  audit_events: AuditEvent[];
  /** The call's trace in the trace viewer (TRACE_URL_TEMPLATE); null when not configured or not traced. */
  trace_url: string | null;
}

export interface MinuteBucket {
  minute: string;
  ok: number;
  tool_error: number;
  refused: number;
  protocol_error: number;
  p95_ms: number | null;
}

export interface Person {
  user_id: string;
  name: string;
  email: string;
}

export interface TokenRef {
  token_id: string;
  name: string;
  kind: string;
}

export interface Facets {
  tools: string[];
  statuses: string[];
  clients: string[];
  people: Person[];
  tokens: TokenRef[];
}

export interface Token {
  id: string;
  kind: 'personal' | 'oauth';
  name: string;
  client_name: string | null;
  user_id: string;
  token_prefix: string;
  scopes: string[];
  status: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  created_at: string;
}

export interface Member {
  user_id: string;
  email: string;
  name: string;
  role: string;
  status: string;
}

/** `GET /v1/mcp/confirmation-policies`: one per tool that asks before it runs. */
export interface ConfirmationPolicy {
  tool: string;
  title: string;
  /** destructive: always decided (default form, never none); write: default none. */
  kind: 'destructive' | 'write';
  mode: 'none' | 'form' | 'verified' | 'approval';
  expiry_seconds: number;
  version: number;
  updated_at: string | null;
  updated_by: string | null;
}

/** `GET /v1/mcp/approvals`: a request for a second admin's approval of one tool call. */
export interface ApprovalRequest {
  id: string;
  tool: string;
  status: 'pending' | 'approved' | 'denied' | 'expired' | 'executed' | 'superseded';
  message: string;
  arguments: Record<string, unknown>;
  target_type: string;
  target_id: string;
  requester_id: string;
  requester_name: string;
  requester_email: string;
  client_name: string | null;
  token_id: string;
  policy_version: number;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  decided_by: string | null;
  decided_by_name: string | null;
  reason: string | null;
  executed_at: string | null;
}
