import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { EraLabel } from '@app/mcp-transport';

@Entity({ name: 'mcp_tool_calls' })
export class ToolCallEntity {
  @PrimaryColumn('uuid')
  id: string;

  @Column({ name: 'organization_id', type: 'uuid' })
  organizationId: string;

  @Column({ name: 'token_id', type: 'uuid' })
  tokenId: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId: string;

  @Column({ type: 'text' })
  tool: string;

  @Column({ name: 'client_name', type: 'text', nullable: true })
  clientName: string | null;

  @Column({ type: 'text' })
  era: EraLabel;

  @Column({ name: 'protocol_version', type: 'text' })
  protocolVersion: string;

  @Column({ type: 'text' })
  status: string;

  @Column({ name: 'is_error', type: 'boolean' })
  isError: boolean;

  @Column({ name: 'duration_ms', type: 'double precision' })
  durationMs: number;

  @Column({ name: 'confirmation_id', type: 'uuid', nullable: true })
  confirmationId: string | null;

  @Column({ name: 'request_id', type: 'text' })
  requestId: string;

  @Column({ name: 'arguments_digest', type: 'text', nullable: true })
  argumentsDigest: string | null;

  /** When the call was received (not when the row was written): the history's time and order. */
  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
