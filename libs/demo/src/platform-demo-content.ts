import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { AccountsRepository } from '@app/accounts';
import { PortalUsersRepository, type PortalUserStatus } from '@app/portal-users';
import type { DemoContentSeeder, DemoOrganization } from './demo.seeder.js';

interface DemoPortalUser {
  email: string;
  name: string;
  status: PortalUserStatus;
  account?: string;
  externalId?: string;
}

/**
 * Accounts and portal users of the demo organisations. Acme: "Initech" (tax id, active portal
 * users: cannot be deleted), "Umbrella Corp" (no portal users: can be deleted), and portal users
 * in every status, among them Ana Souza <ana@example.com> (active). Globex: one account and one
 * portal user, to show that another organisation's records are invisible (404).
 * Seed data is written directly (no invitation mail, no audit events: nobody acted).
 */
@Injectable()
export class PlatformDemoContent implements DemoContentSeeder {
  constructor(
    @InjectDataSource() private readonly ds: DataSource,
    private readonly accounts: AccountsRepository,
    private readonly portalUsers: PortalUsersRepository,
  ) {}

  seed(acme: DemoOrganization, globex: DemoOrganization): Promise<void> {
    return this.ds.transaction(async (tx) => {
      const acmeAccounts = await this.addAccounts(tx, acme.organizationId, [
        { name: 'Initech', external_id: 'crm-1001', tax_id: '12.345.678/0001-90' },
        { name: 'Umbrella Corp', external_id: 'crm-1002', tax_id: null },
      ]);
      await this.addPortalUsers(tx, acme.organizationId, acmeAccounts, [
        {
          email: 'ana@example.com',
          name: 'Ana Souza',
          status: 'active',
          account: 'Initech',
          externalId: 'pu-1001',
        },
        { email: 'bruno@example.com', name: 'Bruno Lima', status: 'active', account: 'Initech' },
        { email: 'carla@example.com', name: 'Carla Mendes', status: 'invited', account: 'Initech' },
        { email: 'diego@example.com', name: 'Diego Rocha', status: 'inactive' },
      ]);
      const globexAccounts = await this.addAccounts(tx, globex.organizationId, [
        { name: 'Globex Holdings', external_id: 'crm-1001', tax_id: '98.765.432/0001-10' },
      ]);
      await this.addPortalUsers(tx, globex.organizationId, globexAccounts, [
        {
          email: 'gary@globex-customer.example',
          name: 'Gary Globex',
          status: 'active',
          account: 'Globex Holdings',
        },
      ]);
    });
  }

  private async addAccounts(
    tx: EntityManager,
    organizationId: string,
    accounts: Array<{ name: string; external_id: string | null; tax_id: string | null }>,
  ): Promise<Map<string, string>> {
    const ids = new Map<string, string>();
    for (const a of accounts)
      ids.set(a.name, (await this.accounts.insert(tx, organizationId, a)).id);
    return ids;
  }

  private async addPortalUsers(
    tx: EntityManager,
    organizationId: string,
    accounts: Map<string, string>,
    users: DemoPortalUser[],
  ): Promise<void> {
    for (const u of users) {
      await this.portalUsers.insert(tx, organizationId, {
        email: u.email,
        name: u.name,
        status: u.status,
        external_id: u.externalId ?? null,
        account_id: u.account === undefined ? null : (accounts.get(u.account) ?? null),
      });
    }
  }
}
