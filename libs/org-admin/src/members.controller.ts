import { Body, Controller, Param, Query, UsePipes } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ApiValidationPipe, type Page, type Plain, Endpoint } from '@app/rest-contract';
import {
  ListMembersQueryDto,
  MemberDto,
  MemberUserIdParamsDto,
  UpdateMemberDto,
} from './member.dto.js';
import { MembersService } from './members.service.js';
import { ORG_ADMIN_ENDPOINTS } from './org-admin.endpoints.js';

/** Organisation members (human/admin operations, not MCP tools): `org:admin` scope and `admin` permission. */
@ApiTags('members')
@ApiBearerAuth()
@UsePipes(ApiValidationPipe)
@Controller()
export class MembersController {
  constructor(private readonly members: MembersService) {}

  @Endpoint(ORG_ADMIN_ENDPOINTS.listMembers)
  list(@Query() query: ListMembersQueryDto): Promise<Page<Plain<MemberDto>>> {
    return this.members.list(query);
  }

  @Endpoint(ORG_ADMIN_ENDPOINTS.updateMember)
  update(
    @Param() params: MemberUserIdParamsDto,
    @Body() body: UpdateMemberDto,
  ): Promise<Plain<MemberDto>> {
    return this.members.update(params.user_id, body);
  }
}
