import { Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import {
  ApiConsumes,
  ApiExcludeEndpoint,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '@app/identity';
import { ApiErrors, type Plain } from '@app/rest-contract';
import { INVITATION_PAGE_HEADERS } from './invitation-page.js';
import { InvitationPagesService, type HtmlPage } from './invitation-pages.service.js';
import { AcceptedInvitationDto } from './portal-user.dto.js';
import { PortalUsersService } from './portal-users.service.js';

const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

/**
 * The public invitation link from the e-mail (no bearer token). A browser GETs a page that shows
 * the invitation and POSTs its form to accept; an API client (the organisation's own portal)
 * POSTs without a form and gets JSON. Both answer `Cache-Control: no-store`: the URL is a secret.
 */
@ApiTags('portal users')
@Controller('v1/portal-invitations')
export class PortalInvitationsController {
  constructor(
    private readonly portalUsers: PortalUsersService,
    private readonly pages: InvitationPagesService,
  ) {}

  @Get(':token/accept')
  @Public()
  @ApiExcludeEndpoint()
  async page(
    @Param('token') token: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    return html(reply, await this.pages.show(token));
  }

  @Post(':token/accept')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'acceptPortalInvitation',
    summary:
      'Accept an invitation with the secret from the e-mail (no bearer token): the portal user becomes active',
    description:
      'Without a body (or with JSON) the answer is JSON. The invitation page (GET on the same URL, for browsers) posts a form here and gets an HTML page back.',
  })
  @ApiParam({ name: 'token', description: 'The invitation secret from the e-mail.' })
  @ApiConsumes('application/json', FORM_MEDIA_TYPE)
  @ApiOkResponse({ type: AcceptedInvitationDto })
  @ApiErrors('NOT_FOUND')
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
