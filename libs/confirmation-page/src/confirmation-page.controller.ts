import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '@app/access-vocabulary';
import { HtmlPage } from '@app/oauth-server';
import { ConfirmationPage, type PageOutcome } from './confirmation-page.service.js';

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
    return answer(reply, await this.pages.show(request, reply, id));
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
    const text = (name: string): string | undefined =>
      typeof form?.[name] === 'string' ? form[name] : undefined;
    return answer(
      reply,
      await this.pages.decide(request, reply, id, {
        csrf: text('csrf'),
        decision: text('decision'),
      }),
    );
  }
}

function answer(reply: FastifyReply, outcome: PageOutcome): string {
  if (outcome.kind === 'redirect') {
    void reply.code(303).header('location', outcome.url);
    return '';
  }
  void reply.code(outcome.status);
  return outcome.html;
}
