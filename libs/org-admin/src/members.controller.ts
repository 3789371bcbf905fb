import { Body, Controller, Param, Query, UsePipes } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ApiValidationPipe, type ResponsesOf, Endpoint } from '@app/rest-contract';
import { ListMembersQueryDto, MemberUserIdParamsDto, UpdateMemberDto } from './member.dto.js';
import { MembersService } from './members.service.js';
import { ORG_ADMIN_ENDPOINTS } from './org-admin.endpoints.js';

/** What each endpoint answers, from its contract (the input DTOs are named for the pipe). */
type Responses = ResponsesOf<typeof ORG_ADMIN_ENDPOINTS>;

/** Organisation members (human/admin operations, not MCP tools): `org:admin` scope and `admin` permission. */
@ApiTags('members')
@ApiBearerAuth()
@UsePipes(ApiValidationPipe)
@Controller()
export class MembersController {
  constructor(private readonly members: MembersService) {}

  @Endpoint(ORG_ADMIN_ENDPOINTS.listMembers)
  list(@Query() query: ListMembersQueryDto): Promise<Responses['listMembers']> {
    return this.members.list(query);
  }

  @Endpoint(ORG_ADMIN_ENDPOINTS.updateMember)
  update(
    @Param() params: MemberUserIdParamsDto,
    @Body() body: UpdateMemberDto,
  ): Promise<Responses['updateMember']> {
    return this.members.update(params.user_id, body);
  }
}
