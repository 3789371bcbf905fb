import { Controller } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { Endpoint, type ResponsesOf } from '@app/rest-contract';
import { HISTORY_PARTITIONS_ENDPOINTS } from './history-partitions.endpoints.js';
import { PartitionMaintainer } from './partition-maintainer.service.js';

/** What each endpoint answers, from its contract. */
type Responses = ResponsesOf<typeof HISTORY_PARTITIONS_ENDPOINTS>;

@ApiTags('audit')
@ApiBearerAuth()
@Controller()
export class HistoryRetentionController {
  constructor(private readonly partitions: PartitionMaintainer) {}

  @Endpoint(HISTORY_PARTITIONS_ENDPOINTS.getHistoryRetention)
  get(): Promise<Responses['getHistoryRetention']> {
    return this.partitions.retentionNow();
  }
}
