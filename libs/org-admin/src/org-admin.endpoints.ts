import type { EndpointContract } from '@app/rest-contract';
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
    query: ListMembersQueryDto,
    response: MemberPageDto,
  },
  updateMember: {
    method: 'PATCH',
    path: '/v1/members/:user_id',
    status: 200,
    params: MemberUserIdParamsDto,
    body: UpdateMemberDto,
    response: MemberDto,
  },
  listTokens: {
    method: 'GET',
    path: '/v1/tokens',
    status: 200,
    query: ListTokensQueryDto,
    response: TokenPageDto,
  },
  createToken: {
    method: 'POST',
    path: '/v1/tokens',
    status: 201,
    body: CreateTokenDto,
    response: CreatedTokenDto,
  },
  revokeToken: {
    method: 'DELETE',
    path: '/v1/tokens/:id',
    status: 200,
    params: TokenIdParamsDto,
    response: TokenDto,
  },
} as const satisfies Record<string, EndpointContract>;
