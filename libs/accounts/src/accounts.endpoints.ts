import type { EndpointContract } from '@app/rest-contract';
import {
  AccountDto,
  AccountIdParamsDto,
  AccountPageDto,
  CreateAccountDto,
  DeletedAccountDto,
  ListAccountsQueryDto,
  UpdateAccountDto,
} from './account.dto.js';

/** The accounts REST endpoints and the DTO classes of their input and output. */
export const ACCOUNTS_ENDPOINTS = {
  list: {
    method: 'GET',
    path: '/v1/accounts',
    status: 200,
    query: ListAccountsQueryDto,
    response: AccountPageDto,
  },
  get: {
    method: 'GET',
    path: '/v1/accounts/:id',
    status: 200,
    params: AccountIdParamsDto,
    response: AccountDto,
  },
  create: {
    method: 'POST',
    path: '/v1/accounts',
    status: 201,
    body: CreateAccountDto,
    response: AccountDto,
  },
  update: {
    method: 'PATCH',
    path: '/v1/accounts/:id',
    status: 200,
    params: AccountIdParamsDto,
    body: UpdateAccountDto,
    response: AccountDto,
  },
  delete: {
    method: 'DELETE',
    path: '/v1/accounts/:id',
    status: 200,
    params: AccountIdParamsDto,
    response: DeletedAccountDto,
  },
} as const satisfies Record<string, EndpointContract>;
