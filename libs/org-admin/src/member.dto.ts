import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayUnique, IsArray, IsIn, IsOptional, IsUUID } from 'class-validator';
import {
  PERMISSIONS,
  ROLES,
  type MembershipStatus,
  type Permission,
  type Role,
} from '@app/access-vocabulary';
import { OptionalNotNull, Out, PageOf, PageQueryDto } from '@app/rest-contract';

const MEMBERSHIP_STATUSES = ['active', 'inactive'] as const;

export class MemberUserIdParamsDto {
  @ApiProperty({ format: 'uuid', description: 'The person (user id).' })
  @IsUUID('all')
  user_id: string;
}

export class ListMembersQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: MEMBERSHIP_STATUSES })
  @IsOptional()
  @IsIn(MEMBERSHIP_STATUSES)
  status?: MembershipStatus;
}

/**
 * PATCH a membership. `role` (owner, admin, member, viewer) resets the permissions to that role's
 * preset; `permissions` sets them by hand and makes the role `custom`. The organisation must keep
 * at least one active member holding `admin` (403 FORBIDDEN otherwise).
 */
export class UpdateMemberDto {
  @ApiPropertyOptional({
    enum: MEMBERSHIP_STATUSES,
    description:
      'An inactive member keeps their tokens but every call is refused (membership_inactive).',
  })
  @OptionalNotNull()
  @IsIn(MEMBERSHIP_STATUSES)
  status?: MembershipStatus;

  @ApiPropertyOptional({ enum: ROLES })
  @OptionalNotNull()
  @IsIn(ROLES)
  role?: Role;

  @ApiPropertyOptional({ enum: PERMISSIONS, isArray: true })
  @OptionalNotNull()
  @IsArray()
  @ArrayUnique({ message: 'must not repeat a permission' })
  @IsIn(PERMISSIONS, { each: true })
  permissions?: Permission[];
}

export class MemberDto {
  @Out.uuid() user_id: string;
  @Out.email() email: string;
  @Out.string() name: string;
  @Out.enum(ROLES) role: Role;
  @Out.enum(MEMBERSHIP_STATUSES) status: MembershipStatus;
  @Out.enumArray(PERMISSIONS) permissions: Permission[];
  @Out.dateTime() created_at: string;
  @Out.dateTime() updated_at: string;
}

export class MemberPageDto extends PageOf(MemberDto) {}
