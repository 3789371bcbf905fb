import { scoped } from '@app/access-vocabulary';
import type { EndpointContract } from '@app/rest-contract';
import { ListOutboxQueryDto, OutboxMessagePageDto } from './mail-outbox.dto.js';

export const MAIL_ENDPOINTS = {
  listMailOutbox: {
    method: 'GET',
    path: '/v1/mail/outbox',
    status: 200,
    access: scoped('org', 'admin', 'admin'),
    operationId: 'listMailOutbox',
    summary:
      'Mail written to the local outbox (when no SMTP server is configured: the demo and tests)',
    errors: ['VALIDATION_ERROR'],
    query: ListOutboxQueryDto,
    response: OutboxMessagePageDto,
  },
} as const satisfies Record<string, EndpointContract>;
