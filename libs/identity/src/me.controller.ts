import { Controller, Get } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { DomainError } from '@app/errors';
import { IdentityRepository } from './identity.repository.js';
import { RequestContext } from './request-context.js';

class MePerson {
  @ApiProperty() id: string;
  @ApiProperty() email: string;
  @ApiProperty() name: string;
}
class MeOrganization {
  @ApiProperty() id: string;
  @ApiProperty() slug: string;
  @ApiProperty() name: string;
}
class MeToken {
  @ApiProperty() id: string;
  @ApiProperty({ enum: ['personal', 'oauth'] }) kind: string;
  @ApiProperty({ type: [String] }) scopes: string[];
  @ApiProperty({ type: String, nullable: true }) client_name: string | null;
}
class MeMembership {
  @ApiProperty() role: string;
  @ApiProperty({ enum: ['active', 'inactive'] }) status: string;
  @ApiProperty({ type: [String] }) permissions: string[];
}
export class MeResponse {
  @ApiProperty({ type: MePerson }) person: MePerson;
  @ApiProperty({ type: MeOrganization }) organization: MeOrganization;
  @ApiProperty({ type: MeToken }) token: MeToken;
  @ApiProperty({ type: MeMembership }) membership: MeMembership;
  @ApiProperty({ enum: ['api', 'mcp'] }) channel: string;
}

@ApiTags('identity')
@ApiBearerAuth()
@Controller('v1/me')
export class MeController {
  constructor(
    private readonly context: RequestContext,
    private readonly identity: IdentityRepository,
  ) {}

  @Get()
  @ApiOperation({ summary: 'Who is calling: the person, organisation, token scopes and permissions' })
  @ApiOkResponse({ type: MeResponse })
  async me(): Promise<MeResponse> {
    const { principal: p, channel } = this.context.caller;
    const org = await this.identity.findOrganization(p.organizationId);
    if (org === null || p.membership === null) throw DomainError.notFound('Organization');
    return {
      person: { id: p.userId, email: p.userEmail, name: p.userName },
      organization: { id: org.id, slug: org.slug, name: org.name },
      token: { id: p.tokenId, kind: p.tokenKind, scopes: [...p.scopes], client_name: p.clientName },
      membership: { role: p.membership.role, status: p.membership.status, permissions: [...p.membership.permissions] },
      channel,
    };
  }
}
