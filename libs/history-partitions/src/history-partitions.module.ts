import { Module } from '@nestjs/common';
import { PartitionMaintainer } from './partition-maintainer.service.js';

/** The history tables' partition maintenance and retention. */
@Module({
  providers: [PartitionMaintainer],
  exports: [PartitionMaintainer],
})
export class HistoryPartitionsModule {}
