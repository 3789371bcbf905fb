import { scoped } from '@app/access-vocabulary';
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
    access: scoped('accounts', 'read', 'accounts.read'),
    operationId: 'listAccounts',
    summary: 'List customer accounts (newest first, cursor pagination)',
    errors: ['VALIDATION_ERROR'],
    query: ListAccountsQueryDto,
    response: AccountPageDto,
  },
  get: {
    method: 'GET',
    path: '/v1/accounts/:id',
    status: 200,
    access: scoped('accounts', 'read', 'accounts.read'),
    operationId: 'getAccount',
    summary: 'Get a customer account',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
    params: AccountIdParamsDto,
    response: AccountDto,
  },
  create: {
    method: 'POST',
    path: '/v1/accounts',
    status: 201,
    access: scoped('accounts', 'write', 'accounts.manage'),
    operationId: 'createAccount',
    summary: 'Create a customer account',
    errors: ['VALIDATION_ERROR', 'CONFLICT', 'DUPLICATE_ERROR'],
    body: CreateAccountDto,
    response: AccountDto,
  },
  update: {
    method: 'PATCH',
    path: '/v1/accounts/:id',
    status: 200,
    access: scoped('accounts', 'write', 'accounts.manage'),
    operationId: 'updateAccount',
    summary: 'Change a customer account (only the fields sent)',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'CONFLICT', 'DUPLICATE_ERROR'],
    params: AccountIdParamsDto,
    body: UpdateAccountDto,
    response: AccountDto,
  },
  delete: {
    method: 'DELETE',
    path: '/v1/accounts/:id',
    status: 200,
    access: scoped('accounts', 'write', 'accounts.delete'),
    operationId: 'deleteAccount',
    summary:
      'Delete a customer account (refused while it has active portal users; the others are detached)',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'FORBIDDEN'],
    params: AccountIdParamsDto,
    response: DeletedAccountDto,
  },
} as const satisfies Record<string, EndpointContract>;
