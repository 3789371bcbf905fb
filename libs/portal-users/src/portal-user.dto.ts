import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsEmail,
  IsIn,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  MinLength,
} from 'class-validator';
import { OptionalNotNull, Out, PageQueryDto, Trim } from '@app/rest-contract';

export const PORTAL_USER_STATUSES = ['invited', 'active', 'inactive'] as const;
export type PortalUserStatus = (typeof PORTAL_USER_STATUSES)[number];

const EMAIL_MAX = 254;
const NAME_MAX = 200;
const EXTERNAL_ID_MAX = 200;
const NO_CONTROL_CHARACTERS = /^[^\p{Cc}]*$/u;

export class PortalUserIdParamsDto {
  @ApiProperty({ format: 'uuid', description: 'Portal user id.' })
  @IsUUID('all')
  id: string;
}

export class ListPortalUsersQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: PORTAL_USER_STATUSES })
  @IsOptional()
  @IsIn(PORTAL_USER_STATUSES)
  status?: PortalUserStatus;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only portal users of this account.' })
  @IsOptional()
  @IsUUID('all')
  account_id?: string;

  @ApiPropertyOptional({
    maxLength: 200,
    description: 'Text contained in the name or e-mail (case-insensitive).',
  })
  @IsOptional()
  @Trim()
  @IsString()
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(200)
  q?: string;
}

export class CreatePortalUserDto {
  @ApiProperty({
    format: 'email',
    maxLength: EMAIL_MAX,
    example: 'ana@example.com',
    description: 'Unique in the organisation, ignoring case (409 DUPLICATE_ERROR).',
  })
  @Trim()
  @IsEmail()
  @MaxLength(EMAIL_MAX)
  email: string;

  @ApiProperty({ maxLength: NAME_MAX, example: 'Ana Souza' })
  @Trim()
  @IsString()
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(NAME_MAX)
  @Matches(NO_CONTROL_CHARACTERS, { message: 'must not contain control characters' })
  name: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: EXTERNAL_ID_MAX,
    description: 'Id in an external system; unique in the organisation (409 CONFLICT).',
  })
  @IsOptional()
  @Trim()
  @IsString()
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(EXTERNAL_ID_MAX)
  external_id?: string | null;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: 'An account of this organisation.',
  })
  @IsOptional()
  @IsUUID('all')
  account_id?: string | null;

  @ApiPropertyOptional({
    default: true,
    description:
      'E-mail the invitation now (default). If the mail service fails, nothing is created (502).',
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
  @ApiPropertyOptional({ format: 'email', maxLength: EMAIL_MAX })
  @OptionalNotNull()
  @Trim()
  @IsEmail()
  @MaxLength(EMAIL_MAX)
  email?: string;

  @ApiPropertyOptional({ maxLength: NAME_MAX })
  @OptionalNotNull()
  @Trim()
  @IsString()
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(NAME_MAX)
  @Matches(NO_CONTROL_CHARACTERS, { message: 'must not contain control characters' })
  name?: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: EXTERNAL_ID_MAX,
    description: '`null` clears it.',
  })
  @IsOptional()
  @Trim()
  @IsString()
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(EXTERNAL_ID_MAX)
  external_id?: string | null;

  @ApiPropertyOptional({
    type: String,
    format: 'uuid',
    nullable: true,
    description: '`null` detaches the account.',
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

export class PortalUserPageDto {
  @Out.nested(() => PortalUserDto, { isArray: true }) data: PortalUserDto[];
  @Out.string({ nullable: true, description: 'Cursor of the next page; `null` on the last page.' })
  next_cursor: string | null;
}

export class DeletedPortalUserDto {
  @Out.uuid() id: string;
  @Out.constant(true) deleted: true;
}

export class AcceptedInvitationDto {
  @Out.uuid() portal_user_id: string;
  @Out.email() email: string;
  @Out.string() name: string;
  @Out.enum(['active']) status: 'active';
}
