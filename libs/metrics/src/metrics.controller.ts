import { Public } from '@app/access-vocabulary';
import { Controller, Get, Header, Headers, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { MetricsService, type MetricsFormat } from './metrics.service.js';

/**
 * `GET /metrics`: the Prometheus scrape endpoint. Not part of the public API (no Swagger). The
 * Prometheus text format unless the scraper prefers OpenMetrics (its `Accept`; Prometheus asks for
 * it first), which also carries the MCP duration histogram's exemplars (trace ids).
 */
@ApiExcludeController()
@Public()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @Header('Cache-Control', 'no-store')
  @Header('Vary', 'Accept')
  async scrape(
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    const { contentType, body } = await this.metrics.render(negotiateMetricsFormat(accept));
    void reply.header('Content-Type', contentType);
    return body;
  }
}

/**
 * OpenMetrics when the `Accept` header names `application/openmetrics-text` with a weight above
 * zero and no lower than the Prometheus text format's (`text/plain`, or `*` / `*` by default);
 * otherwise the Prometheus text format (also without an `Accept`).
 */
export function negotiateMetricsFormat(accept: string | undefined): MetricsFormat {
  if (accept === undefined) return 'prometheus';
  let openMetrics = 0;
  let text = 0;
  for (const range of accept.split(',')) {
    const [type = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (!Number.isFinite(weight)) continue;
    if (type === 'application/openmetrics-text') openMetrics = Math.max(openMetrics, weight);
    else if (type === 'text/plain' || type === 'text/*' || type === '*/*')
      text = Math.max(text, weight);
  }
  return openMetrics > 0 && openMetrics >= text ? 'openmetrics' : 'prometheus';
}
