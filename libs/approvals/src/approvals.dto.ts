import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { Input, Out, PageOf, PageQueryDto } from '@app/rest-contract';
import {
  APPROVAL_STATUSES,
  DECIDED_VIA,
  type ApprovalStatus,
  type DecidedVia,
} from './approval.js';

export class ListApprovalsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    enum: APPROVAL_STATUSES,
    description: 'Only requests in this status; an open request past its expiry is `expired`.',
  })
  @IsOptional()
  @IsIn(APPROVAL_STATUSES)
  status?: ApprovalStatus;
}

export class ApprovalIdParamsDto {
  @ApiProperty({ format: 'uuid', description: 'Approval request id.' })
  @IsUUID('all')
  id: string;
}

export class ApproveDto {
  @Input.optionalText({
    description: 'Why you approve it (kept in the audit trail).',
    maxLength: 1000,
  })
  reason?: string;
}

export class DenyDto {
  @Input.requiredText({
    description: 'Why you deny it: the requester’s agent is told this reason.',
    maxLength: 1000,
  })
  reason: string;
}

export class ApprovalDto {
  @Out.uuid() id: string;
  @Out.string() tool: string;
  @Out.enum(APPROVAL_STATUSES, {
    description: 'A pending or approved request past `expires_at` shows as `expired`.',
  })
  status: string;
  @Out.string({ description: 'The question, as the requester’s call put it.' }) message: string;
  @Out.object({ description: 'The tool call’s arguments, exactly as the agent sent them.' })
  arguments: Record<string, unknown>;
  @Out.string({ description: 'What the tool acts on, e.g. `portal_user`.' }) target_type: string;
  @Out.string() target_id: string;
  @Out.uuid({ description: 'The requester (user id): never the one who decides.' })
  requester_id: string;
  @Out.string() requester_name: string;
  @Out.string() requester_email: string;
  @Out.string({ nullable: true, description: 'The MCP client (or token) name.' })
  client_name: string | null;
  @Out.uuid({ description: 'The token the call came with.' }) token_id: string;
  @Out.integer({ description: 'The confirmation policy version it was asked under.' })
  policy_version: number;
  @Out.dateTime() created_at: string;
  @Out.dateTime({
    description:
      'Until a decision, when the request lapses; once approved, when the approval does.',
  })
  expires_at: string;
  @Out.dateTime({ nullable: true }) decided_at: string | null;
  @Out.uuid({ nullable: true, description: 'The admin who approved or denied it.' })
  decided_by: string | null;
  @Out.string({ nullable: true }) decided_by_name: string | null;
  @Out.enum(DECIDED_VIA, {
    nullable: true,
    description:
      'Where it was decided: `console` (the admin console’s Approvals page) or `api` (a personal token); null while undecided, or for a request decided before this was recorded.',
  })
  decided_via: DecidedVia | null;
  @Out.string({ nullable: true }) reason: string | null;
  @Out.dateTime({ nullable: true, description: 'When the approved call ran (once).' })
  executed_at: string | null;
}

export class ApprovalPageDto extends PageOf(ApprovalDto) {}

export class PendingApprovalCountDto {
  @Out.integer({ description: 'Requests waiting for a decision now (unlapsed).' }) pending: number;
}
