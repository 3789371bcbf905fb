import type { EndpointContract } from '@app/rest-contract';
import { ListOutboxQueryDto, OutboxMessagePageDto } from './mail-outbox.dto.js';

export const MAIL_ENDPOINTS = {
  listMailOutbox: {
    method: 'GET',
    path: '/v1/mail/outbox',
    status: 200,
    query: ListOutboxQueryDto,
    response: OutboxMessagePageDto,
  },
} as const satisfies Record<string, EndpointContract>;
