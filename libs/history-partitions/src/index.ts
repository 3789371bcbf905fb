export { HistoryPartitionsModule } from './history-partitions.module.js';
export {
  PARTITION_MAINTENANCE_INTERVAL_MS,
  PartitionMaintainer,
} from './partition-maintainer.service.js';
export { HISTORY_PARTITIONS_ENDPOINTS } from './history-partitions.endpoints.js';
export { HistoryRetentionDto, HistoryTableRetentionDto } from './history-retention.dto.js';
