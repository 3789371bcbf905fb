import { Controller, Param } from '@nestjs/common';
import { ApiParam, ApiTags } from '@nestjs/swagger';
import { type Plain, Endpoint } from '@app/rest-contract';
import { AcceptedInvitationDto } from './portal-user.dto.js';
import { PortalUsersService } from './portal-users.service.js';
import { PORTAL_USERS_ENDPOINTS } from './portal-users.endpoints.js';

/** The one public portal-user route: the invitation link from the e-mail. */
@ApiTags('portal users')
@Controller()
export class PortalInvitationsController {
  constructor(private readonly portalUsers: PortalUsersService) {}

  @Endpoint(PORTAL_USERS_ENDPOINTS.acceptInvitation)
  @ApiParam({ name: 'token', description: 'The invitation secret from the e-mail.' })
  accept(@Param('token') token: string): Promise<Plain<AcceptedInvitationDto>> {
    return this.portalUsers.acceptInvitation(token);
  }
}
