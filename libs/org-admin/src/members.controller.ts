import { Body, Controller, Get, Param, Patch, Query, UsePipes } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { RequiresAccess } from '@app/access';
import {
  ApiErrors,
  ApiValidationPipe,
  AUTH_ERROR_CODES,
  type Page,
  type Plain,
} from '@app/rest-contract';
import {
  ListMembersQueryDto,
  MemberDto,
  MemberPageDto,
  MemberUserIdParamsDto,
  UpdateMemberDto,
} from './member.dto.js';
import { MembersService } from './members.service.js';

/** Organisation members (human/admin operations, not MCP tools): `org:admin` scope and `admin` permission. */
@ApiTags('members')
@ApiBearerAuth()
@UsePipes(ApiValidationPipe)
@Controller('v1/members')
export class MembersController {
  constructor(private readonly members: MembersService) {}

  @Get()
  @RequiresAccess({ scope: { resource: 'org', access: 'admin' }, permission: 'admin' })
  @ApiOperation({
    operationId: 'listMembers',
    summary: 'List the organisation’s members (by e-mail, cursor pagination)',
  })
  @ApiOkResponse({ type: MemberPageDto })
  @ApiErrors('VALIDATION_ERROR', ...AUTH_ERROR_CODES)
  list(@Query() query: ListMembersQueryDto): Promise<Page<Plain<MemberDto>>> {
    return this.members.list(query);
  }

  @Patch(':user_id')
  @RequiresAccess({ scope: { resource: 'org', access: 'admin' }, permission: 'admin' })
  @ApiOperation({
    operationId: 'updateMember',
    summary: 'Change a member’s status, role or permissions',
  })
  @ApiOkResponse({ type: MemberDto })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND', 'FORBIDDEN', ...AUTH_ERROR_CODES)
  update(
    @Param() params: MemberUserIdParamsDto,
    @Body() body: UpdateMemberDto,
  ): Promise<Plain<MemberDto>> {
    return this.members.update(params.user_id, body);
  }
}
