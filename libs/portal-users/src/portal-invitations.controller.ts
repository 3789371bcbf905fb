import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Public } from '@app/identity';
import { ApiErrors, type Plain } from '@app/rest-contract';
import { AcceptedInvitationDto } from './portal-user.dto.js';
import { PortalUsersService } from './portal-users.service.js';

/** The one public portal-user route: the invitation link from the e-mail. */
@ApiTags('portal users')
@Controller('v1/portal-invitations')
export class PortalInvitationsController {
  constructor(private readonly portalUsers: PortalUsersService) {}

  @Post(':token/accept')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'acceptPortalInvitation',
    summary:
      'Accept an invitation with the secret from the e-mail (no bearer token): the portal user becomes active',
  })
  @ApiParam({ name: 'token', description: 'The invitation secret from the e-mail.' })
  @ApiOkResponse({ type: AcceptedInvitationDto })
  @ApiErrors('NOT_FOUND')
  accept(@Param('token') token: string): Promise<Plain<AcceptedInvitationDto>> {
    return this.portalUsers.acceptInvitation(token);
  }
}
