import { scoped } from '@app/access-vocabulary';
import { PageQueryDto, type EndpointContract } from '@app/rest-contract';
import {
  ListMembersQueryDto,
  MemberDto,
  MemberPageDto,
  MemberUserIdParamsDto,
  UpdateMemberDto,
} from './member.dto.js';
import {
  CreatedTokenDto,
  CreateTokenDto,
  ListTokensQueryDto,
  TokenDto,
  TokenIdParamsDto,
  TokenPageDto,
} from './token.dto.js';

/** Members and tokens REST endpoints (not MCP tools) and their DTO classes. */
export const ORG_ADMIN_ENDPOINTS = {
  listMembers: {
    method: 'GET',
    path: '/v1/members',
    status: 200,
    access: scoped('org', 'admin', 'admin'),
    operationId: 'listMembers',
    summary: 'List the organisation’s members (by e-mail, cursor pagination)',
    errors: ['VALIDATION_ERROR'],
    query: ListMembersQueryDto,
    response: MemberPageDto,
  },
  updateMember: {
    method: 'PATCH',
    path: '/v1/members/:user_id',
    status: 200,
    access: scoped('org', 'admin', 'admin'),
    operationId: 'updateMember',
    summary: 'Change a member’s status, role or permissions',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND', 'FORBIDDEN'],
    params: MemberUserIdParamsDto,
    body: UpdateMemberDto,
    response: MemberDto,
  },
  listTokens: {
    method: 'GET',
    path: '/v1/tokens',
    status: 200,
    access: scoped('org', 'admin', 'admin'),
    operationId: 'listTokens',
    summary: 'List the organisation’s tokens (filter with user_id). Never the secrets.',
    errors: ['VALIDATION_ERROR'],
    query: ListTokensQueryDto,
    response: TokenPageDto,
  },
  createToken: {
    method: 'POST',
    path: '/v1/tokens',
    status: 201,
    access: scoped('org', 'admin', 'admin'),
    operationId: 'createToken',
    summary:
      'Create a personal token for yourself with chosen scopes (at most your token’s) and expiry (no later than your token’s); the secret is shown once',
    errors: ['VALIDATION_ERROR'],
    body: CreateTokenDto,
    response: CreatedTokenDto,
  },
  revokeToken: {
    method: 'DELETE',
    path: '/v1/tokens/:id',
    status: 200,
    access: scoped('org', 'admin', 'admin'),
    operationId: 'revokeToken',
    summary: 'Revoke a token (idempotent)',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
    params: TokenIdParamsDto,
    response: TokenDto,
  },
  listMyTokens: {
    method: 'GET',
    path: '/v1/me/tokens',
    status: 200,
    access: {
      kind: 'authenticated',
      reason:
        'A person sees their own tokens and the MCP clients they connected, whatever their role: only theirs, in this organisation',
    },
    operationId: 'listMyTokens',
    summary: 'List your own tokens and connected MCP clients (OAuth grants) in this organisation',
    errors: ['VALIDATION_ERROR'],
    query: PageQueryDto,
    response: TokenPageDto,
  },
  revokeMyToken: {
    method: 'DELETE',
    path: '/v1/me/tokens/:id',
    status: 200,
    access: {
      kind: 'authenticated',
      reason:
        'A person disconnects their own MCP clients and revokes their own tokens, whatever their role: another person’s token is not found',
    },
    operationId: 'revokeMyToken',
    summary:
      'Revoke one of your own tokens, or disconnect an MCP client you authorized (its access and refresh tokens stop working at once; idempotent)',
    errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
    params: TokenIdParamsDto,
    response: TokenDto,
  },
} as const satisfies Record<string, EndpointContract>;
