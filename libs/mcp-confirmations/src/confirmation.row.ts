import {
  McpConfirmation,
  type ConfirmationMode,
  type ConfirmationStatus,
} from './mcp-confirmation.js';

/** A `mcp_confirmations` row as `pg` returns it. */
export interface ConfirmationRow {
  id: string;
  organization_id: string;
  token_id: string;
  user_id: string;
  tool: string;
  arguments_digest: string;
  target_type: string;
  target_id: string;
  message: string;
  status: ConfirmationStatus;
  protocol_version: string;
  client_name: string | null;
  created_at: Date;
  expires_at: Date;
  decided_at: Date | null;
  tool_call_id: string | null;
  request_id: string;
  mode: ConfirmationMode;
  policy_version: number;
  verified_at: Date | null;
}

/** Every column of {@link ConfirmationRow}, in one SELECT list. */
export const CONFIRMATION_COLUMNS = `id, organization_id, token_id, user_id, tool, arguments_digest,
  target_type, target_id, message, status, protocol_version, client_name, created_at, expires_at,
  decided_at, tool_call_id, request_id, mode, policy_version, verified_at`;

export function toConfirmation(row: ConfirmationRow): McpConfirmation {
  return {
    id: row.id,
    organizationId: row.organization_id,
    tokenId: row.token_id,
    userId: row.user_id,
    tool: row.tool,
    argumentsDigest: row.arguments_digest,
    targetType: row.target_type,
    targetId: row.target_id,
    message: row.message,
    status: row.status,
    protocolVersion: row.protocol_version,
    clientName: row.client_name,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    decidedAt: row.decided_at,
    toolCallId: row.tool_call_id,
    requestId: row.request_id,
    mode: row.mode,
    policyVersion: row.policy_version,
    verifiedAt: row.verified_at,
  };
}
