import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '@app/access-vocabulary';
import { ConsentService } from './consent.service.js';
import { answerPage, formFields } from './page-outcome.js';
import { HtmlPage } from './pages.js';

/** The consent page of an authorization in progress (`/consent/:uid`, named by oidc-provider). */
@ApiExcludeController()
@Public()
@Controller('consent')
export class ConsentController {
  constructor(private readonly consent: ConsentService) {}

  @Get(':uid')
  @HtmlPage()
  async show(
    @Param('uid') uid: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    return answerPage(reply, await this.consent.show(request, reply, uid));
  }

  @Post(':uid/confirm')
  @HttpCode(200)
  @HtmlPage()
  async confirm(
    @Param('uid') uid: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Body() form?: Record<string, unknown>,
  ): Promise<string> {
    const fields = formFields(form, ['csrf', 'decision', 'membership']);
    return answerPage(reply, await this.consent.decide(request, reply, uid, fields));
  }
}
