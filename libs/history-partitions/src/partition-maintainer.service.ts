import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AppConfig } from '@app/config';
import {
  logSafeError,
  maintainPartitions,
  partitionCoverage,
  type RetentionDays,
  type RunSql,
  type TableMaintenance,
} from '@app/database';
import { MetricsService } from '@app/metrics';
import type { Plain } from '@app/rest-contract';
import type { HistoryRetentionDto } from './history-retention.dto.js';

/** How often each replica tries a maintenance round (one of them gets to do it). */
export const PARTITION_MAINTENANCE_INTERVAL_MS = 60 * 60_000;

/**
 * Keeps the history tables' partitions made ahead and drops those past retention
 * (libs/database/src/partitions.ts): once at start-up, before the server listens, then every hour.
 * Every replica tries; an advisory lock lets one of them do the round and the others only read
 * what the tables cover, so each replica's metrics say it. A round that fails is logged and tried
 * again at the next one (the partitions made ahead leave two weeks or more for that).
 */
@Injectable()
export class PartitionMaintainer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PartitionMaintainer.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();

  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly config: AppConfig,
    private readonly metrics: MetricsService,
  ) {}

  /** Days each table keeps (0: all of it), from the configuration. */
  get retention(): RetentionDays {
    return {
      mcp_tool_calls: this.config.historyRetentionDays,
      audit_events: this.config.auditRetentionDays,
      mcp_confirmations: this.config.confirmationRetentionDays,
    };
  }

  /** Each table's retention and how far back its data goes now (`GET /v1/history/retention`). */
  async retentionNow(): Promise<Plain<HistoryRetentionDto>> {
    const coverage = await partitionCoverage((text, params) => this.ds.query(text, params));
    return {
      data: coverage.map((t) => ({
        table: t.table,
        retention_days: this.retention[t.table] === 0 ? null : this.retention[t.table],
        data_since: t.oldestFrom?.toISOString() ?? null,
      })),
    };
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.runOnce();
    this.timer = setInterval(() => void this.runOnce(), PARTITION_MAINTENANCE_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /**
   * One round at `now`: the report when this replica did it, undefined when another one holds the
   * lock (or the round failed; logged).
   */
  runOnce(now = new Date()): Promise<TableMaintenance[] | undefined> {
    const round = this.round(now);
    this.running = round;
    return round;
  }

  private async round(now: Date): Promise<TableMaintenance[] | undefined> {
    // One connection for the whole round: the advisory lock belongs to a session.
    const runner = this.ds.createQueryRunner();
    try {
      const sql: RunSql = (text, params) => runner.query(text, params);
      const report = await maintainPartitions(sql, this.retention, now, (table, p) => {
        this.metrics.recordHistoryPartitionDropped(table);
        this.logger.log(
          { table, partition: p.name, from: p.from.toISOString(), to: p.to.toISOString() },
          'history partition dropped (all its rows past retention)',
        );
      });
      const coverage = report ?? (await partitionCoverage(sql));
      for (const t of coverage)
        this.metrics.setHistoryCoverage(t.table, t.oldestFrom, t.aheadUntil, now);
      for (const t of report ?? []) {
        if (t.created.length > 0) {
          this.logger.log(
            { table: t.table, partitions: t.created },
            'history partitions created ahead',
          );
        }
      }
      return report;
    } catch (err) {
      this.logger.error(
        { err: logSafeError(err) },
        'history partition maintenance failed; tried again next round',
      );
      return undefined;
    } finally {
      await runner.release();
    }
  }
}
