import { IsBoolean, IsEmail, IsIn, IsOptional, IsUUID, MaxLength } from 'class-validator';
import {
  DeletedOf,
  ExternalId,
  Input,
  OptionalNotNull,
  Out,
  PageOf,
  PageQueryDto,
  Trim,
} from '@app/rest-contract';

export const PORTAL_USER_STATUSES = ['invited', 'active', 'inactive'] as const;
export type PortalUserStatus = (typeof PORTAL_USER_STATUSES)[number];

const EMAIL_MAX = 254;
const NAME_MAX = 200;

export class PortalUserIdParamsDto {
  @Input.required({
    format: 'uuid',
    description: 'The portal user’s id (a uuid), as list_portal_users returns it.',
  })
  @IsUUID('all')
  id: string;
}

export class ListPortalUsersQueryDto extends PageQueryDto {
  @Input.optional({
    enum: PORTAL_USER_STATUSES,
    description:
      'Only portal users in this state: invited (not accepted yet), active, or inactive (deactivated).',
  })
  @IsOptional()
  @IsIn(PORTAL_USER_STATUSES)
  status?: PortalUserStatus;

  @Input.optional({
    format: 'uuid',
    description: 'Only portal users of this account: an account id from list_accounts.',
  })
  @IsOptional()
  @IsUUID('all')
  account_id?: string;

  @Input.optionalText({
    maxLength: 200,
    description: 'Only portal users whose name or e-mail contains this text, ignoring case.',
  })
  q?: string;
}

export class CreatePortalUserDto {
  @Input.required({
    format: 'email',
    maxLength: EMAIL_MAX,
    example: 'ana@example.com',
    description:
      'E-mail address the invitation goes to; unique in the organisation ignoring case (else DUPLICATE_ERROR).',
  })
  @Trim()
  @IsEmail()
  @MaxLength(EMAIL_MAX)
  email: string;

  @Input.requiredText({
    maxLength: NAME_MAX,
    example: 'Ana Souza',
    description: 'The person’s full name as it should appear in the portal and the invitation.',
  })
  name: string;

  @ExternalId.create('The person’s')
  external_id?: string | null;

  @Input.optional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'The customer account the person belongs to: an account id from list_accounts.',
  })
  @IsOptional()
  @IsUUID('all')
  account_id?: string | null;

  @Input.optional({
    default: true,
    description:
      'Whether to e-mail the invitation now (true when left out); if sending fails nothing is created.',
  })
  @IsOptional()
  @IsBoolean()
  send_invitation?: boolean;
}

/**
 * PATCH: only the fields present change; `null` clears `external_id` / `account_id`. Changing the
 * e-mail of an invited portal user voids the pending invitation (resend it to the new address).
 */
export class UpdatePortalUserDto {
  @Input.optional({
    format: 'email',
    maxLength: EMAIL_MAX,
    description:
      'New e-mail address; unique in the organisation. A pending invitation is voided: resend it.',
  })
  @OptionalNotNull()
  @Trim()
  @IsEmail()
  @MaxLength(EMAIL_MAX)
  email?: string;

  @Input.optionalText({ maxLength: NAME_MAX, description: 'New full name.' })
  name?: string;

  @ExternalId.update()
  external_id?: string | null;

  @Input.optional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'New account (an account id from list_accounts); null detaches the account.',
  })
  @IsOptional()
  @IsUUID('all')
  account_id?: string | null;
}

export class PortalUserDto {
  @Out.uuid() id: string;
  @Out.email() email: string;
  @Out.string() name: string;
  @Out.string({ nullable: true }) external_id: string | null;
  @Out.uuid({ nullable: true }) account_id: string | null;
  @Out.enum(PORTAL_USER_STATUSES, {
    description: 'invited → active (accepting the invitation) ⇄ inactive.',
  })
  status: PortalUserStatus;
  @Out.dateTime({ nullable: true, description: 'When the last invitation was sent.' })
  invitation_sent_at: string | null;
  @Out.dateTime({
    nullable: true,
    description: 'When the pending invitation expires; `null` when none is pending.',
  })
  invitation_expires_at: string | null;
  @Out.dateTime({ nullable: true }) activated_at: string | null;
  @Out.dateTime({ nullable: true }) deactivated_at: string | null;
  @Out.dateTime() created_at: string;
  @Out.dateTime() updated_at: string;
}

export class PortalUserPageDto extends PageOf(PortalUserDto) {}

export class DeletedPortalUserDto extends DeletedOf(PortalUserDto) {}

export class AcceptedInvitationDto {
  @Out.uuid() portal_user_id: string;
  @Out.email() email: string;
  @Out.string() name: string;
  @Out.enum(['active']) status: 'active';
}
