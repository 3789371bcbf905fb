import { scoped } from '@app/access-vocabulary';
import type { EndpointContract } from '@app/rest-contract';
import { HistoryRetentionDto } from './history-retention.dto.js';

/** How far back the history goes (the console says it above its lists). */
export const HISTORY_PARTITIONS_ENDPOINTS = {
  getHistoryRetention: {
    method: 'GET',
    path: '/v1/history/retention',
    status: 200,
    access: scoped('audit', 'read', 'audit.read'),
    operationId: 'getHistoryRetention',
    summary:
      'How long the call history, the audit trail and the confirmations are kept, and how far back each goes now',
    errors: [],
    response: HistoryRetentionDto,
  },
} as const satisfies Record<string, EndpointContract>;
