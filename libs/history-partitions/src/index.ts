export { HistoryPartitionsModule } from './history-partitions.module.js';
export {
  PARTITION_MAINTENANCE_INTERVAL_MS,
  PartitionMaintainer,
} from './partition-maintainer.service.js';
