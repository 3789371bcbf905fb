import { Controller, Get, Module } from '@nestjs/common';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerHttpMetrics } from './http-metrics.hook.js';
import { negotiateMetricsFormat } from './metrics.controller.js';
import { MetricsModule } from './metrics.module.js';
import { METRICS_CONTENT_TYPE, MetricsService } from './metrics.service.js';

@Controller('v1/accounts')
class AccountsTestController {
  @Get(':id')
  get(): { id: string } {
    return { id: 'a' };
  }
}

@Module({ controllers: [AccountsTestController] })
class FeatureTestModule {}

describe('negotiateMetricsFormat', () => {
  it('chooses OpenMetrics only when the Accept header weighs it at least as high as the text format', () => {
    expect(negotiateMetricsFormat(undefined)).toBe('prometheus');
    expect(negotiateMetricsFormat('*/*')).toBe('prometheus');
    expect(negotiateMetricsFormat('text/plain;version=0.0.4')).toBe('prometheus');
    expect(negotiateMetricsFormat('application/openmetrics-text')).toBe('openmetrics');
    expect(
      negotiateMetricsFormat('application/openmetrics-text;version=1.0.0;q=0.2,text/plain;q=0.5'),
    ).toBe('prometheus');
    expect(negotiateMetricsFormat('application/openmetrics-text;q=0,*/*;q=0.1')).toBe('prometheus');
    expect(negotiateMetricsFormat('Application/OpenMetrics-Text; version=1.0.0, */*;q=0.1')).toBe(
      'openmetrics',
    );
  });
});

describe('MetricsModule on Fastify', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [MetricsModule, FeatureTestModule],
    }).compile();
    app = moduleRef.createNestApplication<NestFastifyApplication>(new FastifyAdapter());
    registerHttpMetrics(app.getHttpAdapter().getInstance(), app.get(MetricsService));
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });

  afterAll(async () => {
    await app.close();
  });

  it('serves GET /metrics as Prometheus text, uncached', async () => {
    const res = await app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(METRICS_CONTENT_TYPE);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain('# TYPE mcp_tool_calls_total counter');
    expect(res.body).toContain('# TYPE process_cpu_user_seconds_total counter');
  });

  it('serves OpenMetrics to a scraper that prefers it (Prometheus’s Accept), and says it varies by Accept', async () => {
    const res = await app.inject({
      method: 'GET',
      url: '/metrics',
      headers: {
        accept:
          'application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1',
      },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(
      'application/openmetrics-text; version=1.0.0; charset=utf-8',
    );
    expect(res.headers.vary).toBe('Accept');
    expect(res.body).toContain('# TYPE mcp_tool_calls counter');
    expect(res.body.endsWith('# EOF\n')).toBe(true);
  });

  it('counts REST requests by route pattern, and neither /metrics nor unmatched raw URLs', async () => {
    await app.inject({ method: 'GET', url: '/v1/accounts/123' });
    await app.inject({ method: 'GET', url: '/v1/accounts/456?x=1' });
    await app.inject({ method: 'GET', url: '/no/such/path/789' });
    const body = (await app.inject({ method: 'GET', url: '/metrics' })).body;

    expect(body).toContain('http_requests_total{route="GET /v1/accounts/:id",status="200"} 2');
    expect(body).toContain('http_requests_total{route="unmatched",status="404"} 1');
    expect(body).not.toContain('/v1/accounts/123');
    expect(body).not.toContain('/no/such/path');
    expect(body).not.toContain('route="GET /metrics"');
  });
});
