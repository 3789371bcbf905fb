import { Controller } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { Out, type ResponsesOf, type EndpointContract, Endpoint } from '@app/rest-contract';
import {
  PERMISSIONS,
  ROLES,
  SCOPES,
  type MembershipStatus,
  type Permission,
  type Role,
  type Scope,
  type TokenKind,
} from '@app/access-vocabulary';
import { DomainError } from '@app/errors';
import { IdentityRepository, RequestContext, type Channel } from '@app/identity';

class MePerson {
  @Out.uuid() id: string;
  @Out.email() email: string;
  @Out.string() name: string;
}
class MeOrganization {
  @Out.uuid() id: string;
  @Out.string({ description: 'Short unique name, e.g. acme' }) slug: string;
  @Out.string() name: string;
}
class MeToken {
  @Out.uuid() id: string;
  @Out.enum(['personal', 'oauth', 'session'], {
    description: '`session`: the admin console’s signed-in person, standing in for a token',
  })
  kind: TokenKind | 'session';
  @Out.enumArray(SCOPES, { description: 'What the token reaches; write implies read' })
  scopes: Scope[];
  @Out.string({ nullable: true, description: 'The MCP client the token was issued to' })
  client_name: string | null;
}
class MeMembership {
  @Out.enum(ROLES) role: Role;
  @Out.enum(['active', 'inactive']) status: MembershipStatus;
  @Out.enumArray(PERMISSIONS, { description: 'What the person may do in the organisation' })
  permissions: Permission[];
}
export class MeResponse {
  @Out.nested(() => MePerson, { description: 'The person who authorized the token' })
  person: MePerson;
  @Out.nested(() => MeOrganization) organization: MeOrganization;
  @Out.nested(() => MeToken) token: MeToken;
  @Out.nested(() => MeMembership) membership: MeMembership;
  @Out.enum(['api', 'mcp'], { description: 'How this request arrived' }) channel: Channel;
}

/** `GET /v1/me` as a table row (the `get_current_context` tool dispatches to it). */
export const ME_ENDPOINTS = {
  me: {
    method: 'GET',
    path: '/v1/me',
    status: 200,
    access: {
      kind: 'authenticated',
      reason:
        'Says who the token acts as and what it may do, so that any member’s token can find out what it is missing',
    },
    operationId: 'getCurrentContext',
    summary: 'Who is calling: the person, organisation, token scopes and permissions',
    errors: [],
    response: MeResponse,
  },
} as const satisfies Record<string, EndpointContract>;

/** What each endpoint answers, from its contract. */
type Responses = ResponsesOf<typeof ME_ENDPOINTS>;

@ApiTags('identity')
@ApiBearerAuth()
@Controller()
export class MeController {
  constructor(
    private readonly context: RequestContext,
    private readonly identity: IdentityRepository,
  ) {}

  @Endpoint(ME_ENDPOINTS.me)
  async me(): Promise<Responses['me']> {
    const { principal: p, channel } = this.context.caller;
    const org = await this.identity.findOrganization(p.organizationId);
    if (org === null || p.membership === null) throw DomainError.notFound('Organization');
    return {
      person: { id: p.userId, email: p.userEmail, name: p.userName },
      organization: { id: org.id, slug: org.slug, name: org.name },
      token: { id: p.tokenId, kind: p.tokenKind, scopes: [...p.scopes], client_name: p.clientName },
      membership: {
        role: p.membership.role,
        status: p.membership.status,
        permissions: [...p.membership.permissions],
      },
      channel,
    };
  }
}
