import { ApiProperty } from '@nestjs/swagger';
import { IsIn, IsInt, Matches, Max, Min } from 'class-validator';
import { Input, OptionalNotNull, Out } from '@app/rest-contract';
import {
  CONFIRMATION_MODES,
  POLICY_EXPIRY_MAX_SECONDS,
  POLICY_EXPIRY_MIN_SECONDS,
  type ConfirmationMode,
  type PolicyToolKind,
} from './confirmation-policy.js';

const POLICY_TOOL_KINDS: readonly PolicyToolKind[] = ['destructive', 'write'];

export class PolicyToolParamsDto {
  @ApiProperty({ description: 'The tool’s name, e.g. delete_portal_user.' })
  @Matches(/^[a-z][a-z0-9_]{0,63}$/, { message: 'must be a tool name' })
  tool: string;
}

/** PATCH a tool's policy: its mode, and how long a question or request stays open. */
export class UpdateConfirmationPolicyDto {
  @Input.required({
    enum: CONFIRMATION_MODES,
    description:
      'none: the tool runs without asking (a write tool’s default; refused for a destructive tool); form: the client’s own form asks the person (a destructive tool’s default); verified: the person confirms on this server’s page; approval: another admin approves in the console.',
  })
  @IsIn(CONFIRMATION_MODES)
  mode: ConfirmationMode;

  @Input.optional({
    description: `Seconds a question or an approval request stays open (${POLICY_EXPIRY_MIN_SECONDS}–${POLICY_EXPIRY_MAX_SECONDS}); left out: unchanged (the server’s CONFIRMATION_TTL_SECONDS for a tool never set).`,
  })
  @OptionalNotNull()
  @IsInt()
  @Min(POLICY_EXPIRY_MIN_SECONDS)
  @Max(POLICY_EXPIRY_MAX_SECONDS)
  expiry_seconds?: number;

  @Input.optional({
    description:
      'The version you are changing (from the list): if someone changed the policy since, the change is refused with CONFLICT instead of overwriting theirs.',
  })
  @OptionalNotNull()
  @IsInt()
  @Min(0)
  version?: number;
}

export class ConfirmationPolicyDto {
  @Out.string() tool: string;
  @Out.string({ description: 'The tool’s title.' }) title: string;
  @Out.enum(POLICY_TOOL_KINDS, {
    description:
      'destructive: always runs after a decision (default form; none is refused); write: runs without asking unless a mode is set (default none).',
  })
  kind: PolicyToolKind;
  @Out.enum(CONFIRMATION_MODES) mode: ConfirmationMode;
  @Out.integer() expiry_seconds: number;
  @Out.integer({
    description:
      '0 for a policy never set (the default); moves by one on every change. A decision made under another version is refused.',
  })
  version: number;
  @Out.dateTime({ nullable: true }) updated_at: string | null;
  @Out.uuid({ nullable: true, description: 'Who changed it last.' }) updated_by: string | null;
}

export class ConfirmationPolicyListDto {
  @Out.nested(() => ConfirmationPolicyDto, { isArray: true }) data: ConfirmationPolicyDto[];
}
