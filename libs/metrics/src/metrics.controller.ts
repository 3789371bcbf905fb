import { Public } from '@app/access-vocabulary';
import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { METRICS_CONTENT_TYPE, MetricsService } from './metrics.service.js';

/** `GET /metrics`: the Prometheus scrape endpoint. Not part of the public API (no Swagger). */
@ApiExcludeController()
@Public()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: MetricsService) {}

  @Get()
  @Header('Content-Type', METRICS_CONTENT_TYPE)
  @Header('Cache-Control', 'no-store')
  async scrape(): Promise<string> {
    const { body } = await this.metrics.render();
    return body;
  }
}
