import { Controller } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { Endpoint, type Plain } from '@app/rest-contract';
import { HISTORY_PARTITIONS_ENDPOINTS } from './history-partitions.endpoints.js';
import type { HistoryRetentionDto } from './history-retention.dto.js';
import { PartitionMaintainer } from './partition-maintainer.service.js';

@ApiTags('audit')
@ApiBearerAuth()
@Controller()
export class HistoryRetentionController {
  constructor(private readonly partitions: PartitionMaintainer) {}

  @Endpoint(HISTORY_PARTITIONS_ENDPOINTS.getHistoryRetention)
  get(): Promise<Plain<HistoryRetentionDto>> {
    return this.partitions.retentionNow();
  }
}
