export const CONFIRMATION_STATUSES = ['pending', 'consumed', 'declined', 'expired'] as const;
export type ConfirmationStatus = (typeof CONFIRMATION_STATUSES)[number];

/**
 * One confirmation asked of a person before a destructive MCP tool runs (an `mcp_confirmations`
 * row, mapped by `toConfirmation`). Rows change state only through {@link ConfirmationLedger}'s
 * conditional UPDATEs.
 */
export interface McpConfirmation {
  id: string;
  organizationId: string;
  tokenId: string;
  userId: string;
  tool: string;

  /** sha-256 hex of the canonical JSON of the tool arguments. */
  argumentsDigest: string;
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
}
