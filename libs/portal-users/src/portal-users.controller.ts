import { Body, Controller, Param, Query, UsePipes } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ApiValidationPipe, type ResponsesOf, Endpoint } from '@app/rest-contract';
import {
  CreatePortalUserDto,
  ListPortalUsersQueryDto,
  PortalUserIdParamsDto,
  UpdatePortalUserDto,
} from './portal-user.dto.js';
import { PortalUsersService } from './portal-users.service.js';
import { PORTAL_USERS_ENDPOINTS } from './portal-users.endpoints.js';

/** What each endpoint answers, from its contract (the input DTOs are named for the pipe). */
type Responses = ResponsesOf<typeof PORTAL_USERS_ENDPOINTS>;

@ApiTags('portal users')
@ApiBearerAuth()
@UsePipes(ApiValidationPipe)
@Controller()
export class PortalUsersController {
  constructor(private readonly portalUsers: PortalUsersService) {}

  @Endpoint(PORTAL_USERS_ENDPOINTS.list)
  list(@Query() query: ListPortalUsersQueryDto): Promise<Responses['list']> {
    return this.portalUsers.list(query);
  }

  @Endpoint(PORTAL_USERS_ENDPOINTS.get)
  get(@Param() params: PortalUserIdParamsDto): Promise<Responses['get']> {
    return this.portalUsers.get(params.id);
  }

  @Endpoint(PORTAL_USERS_ENDPOINTS.create)
  create(@Body() body: CreatePortalUserDto): Promise<Responses['create']> {
    return this.portalUsers.create(body);
  }

  @Endpoint(PORTAL_USERS_ENDPOINTS.update)
  update(
    @Param() params: PortalUserIdParamsDto,
    @Body() body: UpdatePortalUserDto,
  ): Promise<Responses['update']> {
    return this.portalUsers.update(params.id, body);
  }

  @Endpoint(PORTAL_USERS_ENDPOINTS.resendInvitation)
  resendInvitation(@Param() params: PortalUserIdParamsDto): Promise<Responses['resendInvitation']> {
    return this.portalUsers.resendInvitation(params.id);
  }

  @Endpoint(PORTAL_USERS_ENDPOINTS.deactivate)
  deactivate(@Param() params: PortalUserIdParamsDto): Promise<Responses['deactivate']> {
    return this.portalUsers.deactivate(params.id);
  }

  @Endpoint(PORTAL_USERS_ENDPOINTS.activate)
  activate(@Param() params: PortalUserIdParamsDto): Promise<Responses['activate']> {
    return this.portalUsers.activate(params.id);
  }

  @Endpoint(PORTAL_USERS_ENDPOINTS.delete)
  delete(@Param() params: PortalUserIdParamsDto): Promise<Responses['delete']> {
    return this.portalUsers.delete(params.id);
  }
}
