import { Module } from '@nestjs/common';
import { HistoryRetentionController } from './history-retention.controller.js';
import { PartitionMaintainer } from './partition-maintainer.service.js';

/** The history tables' partition maintenance and retention, and `GET /v1/history/retention`. */
@Module({
  controllers: [HistoryRetentionController],
  providers: [PartitionMaintainer],
  exports: [PartitionMaintainer],
})
export class HistoryPartitionsModule {}
