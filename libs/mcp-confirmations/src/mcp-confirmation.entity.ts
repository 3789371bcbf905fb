import { Column, Entity, PrimaryColumn } from 'typeorm';

export const CONFIRMATION_STATUSES = ['pending', 'consumed', 'declined', 'expired'] as const;
export type ConfirmationStatus = (typeof CONFIRMATION_STATUSES)[number];

/**
 * One confirmation asked of a person before a destructive MCP tool runs (`mcp_confirmations`).
 * Rows change state only through {@link ConfirmationLedger}'s conditional UPDATEs.
 */
@Entity({ name: 'mcp_confirmations' })
export class McpConfirmationEntity {
  @PrimaryColumn({ type: 'uuid' })
  id: string;

  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId: string;

  @Column({ name: 'token_id', type: 'uuid' })
  tokenId: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId: string;

  @Column({ type: 'text' })
  tool: string;

  /** sha-256 hex of the canonical JSON of the tool arguments. */
  @Column({ name: 'arguments_digest', type: 'text' })
  argumentsDigest: string;

  @Column({ name: 'target_type', type: 'text' })
  targetType: string;

  @Column({ name: 'target_id', type: 'text' })
  targetId: string;

  /** The message as shown to the person. */
  @Column({ type: 'text' })
  message: string;

  @Column({ type: 'text' })
  status: ConfirmationStatus;

  @Column({ name: 'protocol_version', type: 'text' })
  protocolVersion: string;

  @Column({ name: 'client_name', type: 'text', nullable: true })
  clientName: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  /** When the person accepted (consumed) or declined; null while pending and when expired. */
  @Column({ name: 'decided_at', type: 'timestamptz', nullable: true })
  decidedAt: Date | null;

  /** The MCP tool call this confirmation authorized, attached after consumption. */
  @Column({ name: 'tool_call_id', type: 'uuid', nullable: true })
  toolCallId: string | null;

  /** The id of the request that asked. */
  @Column({ name: 'request_id', type: 'text' })
  requestId: string;
}
