import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { OAuthRecordsRepository } from './oauth-records.repository.js';
import { PeopleRepository } from './people.repository.js';

/** How often each replica sweeps (plus up to a tenth of it at random, so replicas spread out). */
export const HOUSEKEEPING_INTERVAL_MS = 15 * 60_000;
/** Rows deleted per table per sweep: a sweep stays a few short statements however far behind. */
export const HOUSEKEEPING_BATCH = 1000;

/** What one sweep removed, per table. */
export interface SweepResult {
  oauthRecords: number;
  signInLinks: number;
  personSessions: number;
}

/**
 * Deletes what the sign-in and the authorization server no longer need, on every replica, every
 * {@link HOUSEKEEPING_INTERVAL_MS}: `oauth_records` (codes, refresh tokens, grants, interactions,
 * the provider's sessions), one-time sign-in links and person sessions that expired more than a
 * day ago. Nothing expired is ever honoured (every read checks `expires_at`); the day of grace
 * keeps the answers that name an expired link ("expired", not "unknown") and costs nothing.
 * Each table loses at most {@link HOUSEKEEPING_BATCH} rows per sweep, rows another replica is
 * deleting are skipped, and a failed sweep is logged and retried at the next tick.
 */
@Injectable()
export class OAuthHousekeeping implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OAuthHousekeeping.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  constructor(
    private readonly records: OAuthRecordsRepository,
    private readonly people: PeopleRepository,
  ) {}

  onApplicationBootstrap(): void {
    const every =
      HOUSEKEEPING_INTERVAL_MS + Math.floor(Math.random() * HOUSEKEEPING_INTERVAL_MS * 0.1);
    this.timer = setInterval(() => {
      this.running ??= this.sweep()
        .catch((err: unknown) => this.logger.warn({ err }, 'OAuth housekeeping sweep failed'))
        .finally(() => (this.running = undefined));
    }, every);
    // Never what keeps the process alive.
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One sweep of the three tables, each bounded by `batch` rows. */
  async sweep(batch = HOUSEKEEPING_BATCH): Promise<SweepResult> {
    const result: SweepResult = {
      oauthRecords: await this.records.purgeExpired(batch),
      signInLinks: await this.people.purgeExpiredSignInLinks(batch),
      personSessions: await this.people.purgeExpiredSessions(batch),
    };
    const total = result.oauthRecords + result.signInLinks + result.personSessions;
    if (total > 0) this.logger.log(result, `OAuth housekeeping removed ${total} expired rows`);
    return result;
  }
}
