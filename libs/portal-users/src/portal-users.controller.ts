import { Body, Controller, Param, Query, UsePipes } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ApiValidationPipe, type Page, type Plain, Endpoint } from '@app/rest-contract';
import {
  CreatePortalUserDto,
  DeletedPortalUserDto,
  ListPortalUsersQueryDto,
  PortalUserDto,
  PortalUserIdParamsDto,
  UpdatePortalUserDto,
} from './portal-user.dto.js';
import { PortalUsersService } from './portal-users.service.js';
import { PORTAL_USERS_ENDPOINTS } from './portal-users.endpoints.js';

@ApiTags('portal users')
@ApiBearerAuth()
@UsePipes(ApiValidationPipe)
@Controller()
export class PortalUsersController {
  constructor(private readonly portalUsers: PortalUsersService) {}

  @Endpoint(PORTAL_USERS_ENDPOINTS.list)
  list(@Query() query: ListPortalUsersQueryDto): Promise<Page<Plain<PortalUserDto>>> {
    return this.portalUsers.list(query);
  }

  @Endpoint(PORTAL_USERS_ENDPOINTS.get)
  get(@Param() params: PortalUserIdParamsDto): Promise<Plain<PortalUserDto>> {
    return this.portalUsers.get(params.id);
  }

  @Endpoint(PORTAL_USERS_ENDPOINTS.create)
  create(@Body() body: CreatePortalUserDto): Promise<Plain<PortalUserDto>> {
    return this.portalUsers.create(body);
  }

  @Endpoint(PORTAL_USERS_ENDPOINTS.update)
  update(
    @Param() params: PortalUserIdParamsDto,
    @Body() body: UpdatePortalUserDto,
  ): Promise<Plain<PortalUserDto>> {
    return this.portalUsers.update(params.id, body);
  }

  @Endpoint(PORTAL_USERS_ENDPOINTS.resendInvitation)
  resendInvitation(@Param() params: PortalUserIdParamsDto): Promise<Plain<PortalUserDto>> {
    return this.portalUsers.resendInvitation(params.id);
  }

  @Endpoint(PORTAL_USERS_ENDPOINTS.deactivate)
  deactivate(@Param() params: PortalUserIdParamsDto): Promise<Plain<PortalUserDto>> {
    return this.portalUsers.deactivate(params.id);
  }

  @Endpoint(PORTAL_USERS_ENDPOINTS.activate)
  activate(@Param() params: PortalUserIdParamsDto): Promise<Plain<PortalUserDto>> {
    return this.portalUsers.activate(params.id);
  }

  @Endpoint(PORTAL_USERS_ENDPOINTS.delete)
  delete(@Param() params: PortalUserIdParamsDto): Promise<Plain<DeletedPortalUserDto>> {
    return this.portalUsers.delete(params.id);
  }
}
