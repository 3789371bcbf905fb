import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '@app/access-vocabulary';
import { answerPage, formFields, HtmlPage } from '@app/oauth-server';
import { ConfirmationPage } from './confirmation-page.service.js';

/**
 * `/confirm/:id`: the page of a `verified` confirmation. Public as far as tokens go: the person's
 * browser session is what it checks (see {@link ConfirmationPage}).
 */
@ApiExcludeController()
@Public()
@Controller('confirm')
export class ConfirmationPageController {
  constructor(private readonly pages: ConfirmationPage) {}

  @Get(':id')
  @HtmlPage()
  async show(
    @Param('id') id: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    return answerPage(reply, await this.pages.show(request, reply, id));
  }

  @Post(':id')
  @HttpCode(200)
  @HtmlPage()
  async decide(
    @Param('id') id: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
    @Body() form?: Record<string, unknown>,
  ): Promise<string> {
    const fields = formFields(form, ['csrf', 'decision']);
    return answerPage(reply, await this.pages.decide(request, reply, id, fields));
  }
}
