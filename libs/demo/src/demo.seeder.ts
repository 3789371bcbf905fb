import { Injectable } from '@nestjs/common';
import { READ_SCOPES, ROLE_PERMISSIONS, SCOPES, type Scope } from '@app/access-vocabulary';
import { IdentityRepository, MembershipsRepository, TokensService } from '@app/identity';
import type { DemoTokenSecrets } from './demo-tokens.js';
import { PlatformDemoContent } from './platform-demo-content.js';

export interface DemoOrganization {
  organizationId: string;
  ownerId: string;
}

/** Extra demo data (portal users, accounts) contributed by feature libraries. */
export interface DemoContentSeeder {
  seed(acme: DemoOrganization, globex: DemoOrganization): Promise<void>;
}

/**
 * Seeds organisation "Acme" (with people and tokens that reach every authorization outcome) and
 * "Globex" (a second tenant, to show that records of another organisation are invisible).
 */
@Injectable()
export class DemoSeeder {
  constructor(
    private readonly identity: IdentityRepository,
    private readonly memberships: MembershipsRepository,
    private readonly tokens: TokensService,
    private readonly platformContent: PlatformDemoContent,
  ) {}

  async isSeeded(): Promise<boolean> {
    return (await this.identity.findOrganizationBySlug('acme')) !== null;
  }

  /** `content`: what to seed after people and tokens; by default the accounts and portal users. */
  async seed(
    content: readonly DemoContentSeeder[] = [this.platformContent],
  ): Promise<DemoTokenSecrets> {
    const acme = await this.identity.createOrganization('acme', 'Acme');
    const globex = await this.identity.createOrganization('globex', 'Globex');

    const owner = await this.identity.createUser('olivia.owner@acme.test', 'Olivia Owner');
    const member = await this.identity.createUser('max.member@acme.test', 'Max Member');
    const inactive = await this.identity.createUser('ingrid.inactive@acme.test', 'Ingrid Inactive');
    const former = await this.identity.createUser('frank.former@acme.test', 'Frank Former');
    const globexOwner = await this.identity.createUser('gina.owner@globex.test', 'Gina Owner');

    await this.memberships.add(acme.id, owner.id, 'owner', ROLE_PERMISSIONS.owner);
    await this.memberships.add(acme.id, member.id, 'member', ROLE_PERMISSIONS.member);
    await this.memberships.add(acme.id, inactive.id, 'member', ROLE_PERMISSIONS.member, 'inactive');
    // Frank was a member when he created his token, then was removed from Acme.
    await this.memberships.add(acme.id, former.id, 'member', ROLE_PERMISSIONS.member);
    await this.memberships.add(globex.id, globexOwner.id, 'owner', ROLE_PERMISSIONS.owner);

    const pat = async (
      orgId: string,
      userId: string,
      name: string,
      scopes: readonly Scope[] = SCOPES,
    ) =>
      (await this.tokens.issue({ organizationId: orgId, userId, kind: 'personal', name, scopes }))
        .secret;

    const secrets: DemoTokenSecrets = {
      owner: await pat(acme.id, owner.id, 'Owner (all scopes)'),
      member: await pat(acme.id, member.id, 'Member (all scopes, no delete permission)'),
      readonly_pat: await pat(acme.id, owner.id, 'Owner read-only', READ_SCOPES),
      oauth_reader: (
        await this.tokens.issue({
          organizationId: acme.id,
          userId: owner.id,
          kind: 'oauth',
          name: 'Demo MCP client',
          clientName: 'Demo MCP client',
          scopes: READ_SCOPES,
        })
      ).secret,
      inactive_member: await pat(acme.id, inactive.id, 'Inactive member'),
      former_member: await pat(acme.id, former.id, 'Former member'),
      globex_owner: await pat(globex.id, globexOwner.id, 'Globex owner (all scopes)'),
    };
    await this.memberships.remove(acme.id, former.id);

    const acmeOrg = { organizationId: acme.id, ownerId: owner.id };
    const globexOrg = { organizationId: globex.id, ownerId: globexOwner.id };
    for (const c of content) await c.seed(acmeOrg, globexOrg);
    return secrets;
  }
}
