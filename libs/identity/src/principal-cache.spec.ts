import { describe, expect, it } from 'vitest';
import { DataSource } from 'typeorm';
import { loadConfig } from '@app/config';
import { PrincipalCache } from './principal-cache.js';
import type { PrincipalRow } from './tokens.repository.js';

function row(tokenId: string, organizationId = 'org-1', userId = 'user-1'): PrincipalRow {
  return {
    token_id: tokenId,
    kind: 'personal',
    token_name: 'test',
    scopes: [],
    client_name: null,
    audience: null,
    dpop_jkt: null,
    expires_at: null,
    revoked_at: null,
    last_used_at: new Date(),
    organization_id: organizationId,
    organization_slug: 'acme',
    user_id: userId,
    user_email: 'a@acme.test',
    user_name: 'A',
    membership_id: 'm-1',
    membership_status: 'active',
    membership_role: 'member',
    permissions: [],
  };
}

/** A cache without a database: the test plays the change feed. */
function cache(ttlMs = 60_000) {
  const c = new PrincipalCache(
    loadConfig({}, { principalCacheTtlMs: ttlMs }),
    new DataSource({ type: 'postgres' }),
  );
  let loads = 0;
  const rows = new Map<string, PrincipalRow>();
  const resolve = (hash: string) =>
    c.resolve(hash, () => {
      loads++;
      return Promise.resolve(rows.get(hash));
    });
  return { c, rows, resolve, loads: () => loads };
}

describe('PrincipalCache', () => {
  it('passes every lookup through until the change feed is listening', async () => {
    const { rows, resolve, loads } = cache();
    rows.set('h1', row('t1'));
    await resolve('h1');
    await resolve('h1');
    expect(loads()).toBe(2);
  });

  it('serves a resolved token from memory while listening, until its TTL', async () => {
    const { c, rows, resolve, loads } = cache();
    c.listeningChanged(true);
    rows.set('h1', row('t1'));
    expect((await resolve('h1'))?.token_id).toBe('t1');
    expect((await resolve('h1'))?.token_id).toBe('t1');
    expect(loads()).toBe(1);

    const { c: expiring, rows: r2, resolve: resolve2, loads: loads2 } = cache(1);
    expiring.listeningChanged(true);
    r2.set('h1', row('t1'));
    await resolve2('h1');
    await new Promise((r) => setTimeout(r, 5));
    await resolve2('h1');
    expect(loads2()).toBe(2);
  });

  it('never caches an unknown token', async () => {
    const { c, resolve, loads } = cache();
    c.listeningChanged(true);
    expect(await resolve('nope')).toBeUndefined();
    expect(await resolve('nope')).toBeUndefined();
    expect(loads()).toBe(2);
  });

  it('drops exactly the entries a notification names', async () => {
    const { c, rows, resolve, loads } = cache();
    c.listeningChanged(true);
    rows.set('h1', row('t1', 'org-1', 'user-1'));
    rows.set('h2', row('t2', 'org-1', 'user-2'));
    rows.set('h3', row('t3', 'org-2', 'user-3'));
    for (const h of ['h1', 'h2', 'h3']) await resolve(h);
    expect(loads()).toBe(3);

    c.changed('t:t1'); // token revoked
    for (const h of ['h1', 'h2', 'h3']) await resolve(h);
    expect(loads()).toBe(4);

    c.changed('m:org-1:user-2'); // membership changed
    for (const h of ['h1', 'h2', 'h3']) await resolve(h);
    expect(loads()).toBe(5);

    c.changed('u:user-3'); // person changed
    await resolve('h3');
    expect(loads()).toBe(6);

    c.changed('o:org-1'); // organisation changed
    for (const h of ['h1', 'h2', 'h3']) await resolve(h);
    expect(loads()).toBe(8);

    c.changed('something new'); // unreadable: everything goes
    for (const h of ['h1', 'h2', 'h3']) await resolve(h);
    expect(loads()).toBe(11);
  });

  it('does not cache a lookup that a notification overtook (it may have read the old row)', async () => {
    const { c } = cache();
    c.listeningChanged(true);
    let loads = 0;
    const stale = () =>
      c.resolve('h1', () => {
        loads++;
        if (loads === 1) c.changed('t:t1'); // the change commits while the first lookup runs
        return Promise.resolve(row('t1'));
      });
    await stale();
    await stale();
    expect(loads).toBe(2);
  });

  it('drops everything and passes through while the feed is down, caches again once it is back', async () => {
    const { c, rows, resolve, loads } = cache();
    c.listeningChanged(true);
    rows.set('h1', row('t1'));
    await resolve('h1');
    c.listeningChanged(false);
    expect(c.active).toBe(false);
    await resolve('h1');
    await resolve('h1');
    expect(loads()).toBe(3);
    c.listeningChanged(true);
    await resolve('h1');
    await resolve('h1');
    expect(loads()).toBe(4);
  });

  it('TTL 0 turns the cache off', async () => {
    const { c, rows, resolve, loads } = cache(0);
    await c.onModuleInit();
    rows.set('h1', row('t1'));
    await resolve('h1');
    await resolve('h1');
    expect(loads()).toBe(2);
  });
});
