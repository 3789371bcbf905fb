import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import {
  HealthCheck,
  HealthCheckService,
  TypeOrmHealthIndicator,
  type HealthCheckResult,
} from '@nestjs/terminus';
import { Public } from '@app/identity';
import { ShutdownState } from './shutdown.state.js';

@ApiExcludeController()
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly shutdown: ShutdownState,
  ) {}

  /** The process is up and serving HTTP. Nothing else is checked: a DB outage must not restart pods. */
  @Get('live')
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  /**
   * Ready for traffic: start-up finished (demo data seeded, tokens file written), the database
   * answers within 1.5 s, and the process is not draining.
   */
  @Get('ready')
  @HealthCheck()
  ready(): Promise<HealthCheckResult> {
    if (!this.shutdown.started) {
      throw new ServiceUnavailableException({
        status: 'error',
        error: { startup: { status: 'down', message: 'starting' } },
      });
    }
    if (this.shutdown.draining) {
      throw new ServiceUnavailableException({
        status: 'error',
        error: { shutdown: { status: 'down', message: 'draining' } },
      });
    }
    return this.health.check([() => this.db.pingCheck('database', { timeout: 1_500 })]);
  }
}
