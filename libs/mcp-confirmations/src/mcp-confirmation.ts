import type { ConfirmationBinding } from './confirmation.binding.js';

export const CONFIRMATION_STATUSES = ['pending', 'consumed', 'declined', 'expired'] as const;
export type ConfirmationStatus = (typeof CONFIRMATION_STATUSES)[number];

/**
 * Who can confirm: `form`, the client's own form (its answer comes with the retry); `verified`,
 * only the person who authorized the client, signed in on this server's page (ADR 0012).
 */
export const CONFIRMATION_KINDS = ['form', 'verified'] as const;
export type ConfirmationMode = (typeof CONFIRMATION_KINDS)[number];

/**
 * One confirmation asked of a person before a destructive MCP tool runs (an `mcp_confirmations`
 * row, mapped by `toConfirmation`). Rows change state only through {@link ConfirmationLedger}'s
 * conditional UPDATEs.
 */
export interface McpConfirmation extends ConfirmationBinding {
  id: string;
  targetType: string;
  targetId: string;

  /** The message as shown to the person. */
  message: string;
  status: ConfirmationStatus;
  protocolVersion: string;
  clientName: string | null;
  createdAt: Date;
  expiresAt: Date;

  /** When the person accepted (consumed) or declined; null while pending and when expired. */
  decidedAt: Date | null;

  /** The MCP tool call this confirmation authorized, attached after consumption. */
  toolCallId: string | null;

  /** The id of the request that asked. */
  requestId: string;

  /** Where the person answers: the client's form, or this server's page. */
  mode: ConfirmationMode;

  /** The version of the tool's confirmation policy the question was asked under. */
  policyVersion: number;

  /**
   * `verified` only: when the person confirmed on the page. The row stays `pending` until the
   * client's retry consumes it (then `decidedAt` says when it was used).
   */
  verifiedAt: Date | null;
}
