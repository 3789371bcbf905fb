import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import {
  HealthCheck,
  HealthCheckService,
  HealthIndicatorService,
  TypeOrmHealthIndicator,
  type HealthCheckResult,
  type HealthIndicatorResult,
} from '@nestjs/terminus';
import { Public } from '@app/access-vocabulary';
import { SchemaStatus } from './schema-status.js';
import { ShutdownState } from './shutdown.state.js';

@ApiExcludeController()
@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly db: TypeOrmHealthIndicator,
    private readonly shutdown: ShutdownState,
    private readonly indicator: HealthIndicatorService,
    private readonly schema: SchemaStatus,
  ) {}

  /** The process is up and serving HTTP. Nothing else is checked: a DB outage must not restart pods. */
  @Get('live')
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  /**
   * Ready for traffic: start-up finished (demo data seeded, tokens file written), the database
   * answers within 1.5 s, no migration is pending, and the process is not draining.
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
    return this.health.check([
      () => this.db.pingCheck('database', { timeout: 1_500 }),
      () => this.migrations(),
    ]);
  }

  /** `migrations` up when the schema is current; down with the pending names when it is behind. */
  private async migrations(): Promise<HealthIndicatorResult<'migrations'>> {
    const session = this.indicator.check('migrations');
    let outcome: Awaited<ReturnType<SchemaStatus['check']>> | undefined;
    const reached = await session
      .attempt(async () => {
        outcome = await this.schema.check();
      })
      .withTimeout(1_500);
    if (outcome === undefined) return reached;
    return outcome.current
      ? session.up()
      : session.down({
          message: `${outcome.pending.length} migration(s) pending: run the migrations`,
          pending: outcome.pending,
        });
  }
}
