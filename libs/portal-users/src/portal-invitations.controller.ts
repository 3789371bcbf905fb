import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiConsumes, ApiExcludeEndpoint, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '@app/access-vocabulary';
import { Endpoint, type Plain } from '@app/rest-contract';
import { INVITATION_PAGE_HEADERS } from './invitation-page.js';
import { InvitationPagesService, type HtmlPage } from './invitation-pages.service.js';
import { AcceptedInvitationDto } from './portal-user.dto.js';
import { PortalUsersService } from './portal-users.service.js';
import { PORTAL_USERS_ENDPOINTS } from './portal-users.endpoints.js';

const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

/**
 * The public invitation link from the e-mail (no bearer token). A browser GETs a page that shows
 * the invitation and POSTs its form to accept; an API client (the organisation's own portal)
 * POSTs without a form and gets JSON. Both answer `Cache-Control: no-store`: the URL is a secret.
 */
@ApiTags('portal users')
@Controller()
export class PortalInvitationsController {
  constructor(
    private readonly portalUsers: PortalUsersService,
    private readonly pages: InvitationPagesService,
  ) {}

  @Get('v1/portal-invitations/:token/accept')
  @Public()
  @ApiExcludeEndpoint()
  async page(
    @Param('token') token: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    return html(reply, await this.pages.show(token));
  }

  // Not typed from its contract: a browser's form post gets the HTML page, which the contract omits.
  @Endpoint(PORTAL_USERS_ENDPOINTS.acceptInvitation)
  @ApiParam({ name: 'token', description: 'The invitation secret from the e-mail.' })
  @ApiConsumes('application/json', FORM_MEDIA_TYPE)
  async accept(
    @Param('token') token: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<Plain<AcceptedInvitationDto> | string> {
    if (!isFormPost(request)) {
      void reply.header('cache-control', 'no-store');
      return this.portalUsers.acceptInvitation(token);
    }
    const fetchSite = request.headers['sec-fetch-site'];
    return html(
      reply,
      await this.pages.submit(token, {
        fields: request.body,
        fetchSite: typeof fetchSite === 'string' ? fetchSite : undefined,
      }),
    );
  }
}

function html(reply: FastifyReply, page: HtmlPage): string {
  void reply.status(page.status).headers(INVITATION_PAGE_HEADERS);
  return page.html;
}

function isFormPost(request: FastifyRequest): boolean {
  const type = request.headers['content-type'];
  return (
    typeof type === 'string' && type.split(';', 1)[0]?.trim().toLowerCase() === FORM_MEDIA_TYPE
  );
}
