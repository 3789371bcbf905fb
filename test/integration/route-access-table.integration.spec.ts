import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOOLS } from '@app/mcp-tools';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { call, type Json } from './platform-api.fixtures.js';

/**
 * The route-by-token table: every operation of the OpenAPI document, called with every demo token
 * (and tokens minted with a single scope), must answer exactly what its declared access says —
 * no route is reachable without both its scope and its permission. Nothing here is a hand-picked
 * list: a route added tomorrow is walked too, and one without a declared access fails.
 */

interface Access {
  kind: 'scoped' | 'authenticated' | 'public';
  scope?: { resource: string; access: string };
  permission?: string;
  reason?: string;
}

interface Route {
  method: string;
  path: string;
  access: Access;
}

interface Caller {
  name: string;
  secret: string | undefined;
  /** What the token holds; `undefined` when it is refused before its scopes matter. */
  scopes?: readonly string[];
  permissions?: readonly string[];
  membership?: 'key_owner_not_member' | 'membership_inactive';
}

const AUTH_REFUSALS = new Set([
  'UNAUTHENTICATED',
  'INVALID_TOKEN',
  'key_owner_not_member',
  'membership_inactive',
  'insufficient_scope',
  'insufficient_permission',
]);

/** Written here, not imported: the test must not share the code it checks. */
function reaches(scopes: readonly string[], resource: string, access: string): boolean {
  return (
    scopes.includes(`${resource}:${access}`) ||
    (access === 'read' && scopes.includes(`${resource}:write`))
  );
}

function expectedRefusal(route: Route, caller: Caller): string | null {
  if (route.access.kind === 'public') return null;
  if (caller.secret === undefined) return 'UNAUTHENTICATED';
  if (caller.membership !== undefined) return caller.membership;
  if (route.access.kind === 'authenticated') return null;
  const { scope, permission } = route.access;
  if (scope === undefined || permission === undefined) return 'undeclared';
  if (!reaches(caller.scopes ?? [], scope.resource, scope.access)) return 'insufficient_scope';
  const held = caller.permissions ?? [];
  if (!held.includes(permission) && !held.includes('admin')) return 'insufficient_permission';
  return null;
}

function routesOf(openapi: Json): Route[] {
  const routes: Route[] = [];
  for (const [path, item] of Object.entries<Json>(openapi.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      routes.push({ method: method.toUpperCase(), path, access: op['x-access'] });
    }
  }
  return routes;
}

describe('route-by-token access table', () => {
  let t: TestServer;
  let routes: Route[];
  const callers: Caller[] = [];

  beforeAll(async () => {
    t = await startTestServer();
    const openapi: Json = await (await t.request('/v1/openapi.json')).json();
    routes = routesOf(openapi);
    for (const [name, secret] of Object.entries(t.tokens)) {
      const me = await call(t, 'GET', '/v1/me', { token: secret });
      if (me.status === 200) {
        callers.push({
          name,
          secret,
          scopes: me.body.token.scopes,
          permissions: me.body.membership.permissions,
        });
      } else {
        callers.push({ name, secret, membership: me.body.error.code });
      }
    }
    // Tokens with one scope each, minted by the owner: every scope is needed by name.
    for (const scope of ['audit:read', 'org:admin', 'accounts:write', 'portal_users:read']) {
      const minted = await call(t, 'POST', '/v1/tokens', {
        json: { name: `only ${scope}`, scopes: [scope] },
      });
      if (minted.status !== 201) throw new Error(`could not mint a ${scope} token`);
      const owner = callers.find((c) => c.name === 'owner');
      callers.push({
        name: `owner, only ${scope}`,
        secret: minted.body.secret,
        scopes: [scope],
        permissions: owner?.permissions ?? [],
      });
    }
    callers.push({ name: 'no token', secret: undefined });
  }, 120_000);
  afterAll(async () => t?.close());

  it('every route of the OpenAPI document declares its access (public ones say why)', () => {
    expect(routes.length).toBeGreaterThan(20);
    const undeclared = routes
      .filter((r) =>
        r.access?.kind === 'scoped'
          ? r.access.scope === undefined || r.access.permission === undefined
          : !['authenticated', 'public'].includes(r.access?.kind) ||
            (r.access.reason?.length ?? 0) < 20,
      )
      .map((r) => `${r.method} ${r.path}`);
    expect(undeclared).toEqual([]);
  });

  it('no route answers a token that lacks its scope or its permission, and each answers one that has both', async () => {
    const mismatches: string[] = [];
    for (const route of routes) {
      const path = route.path.replace(/\{[^}]+\}/g, () => randomUUID());
      const json = route.method === 'POST' || route.method === 'PATCH' ? {} : undefined;
      for (const caller of callers) {
        const res = await t.request(path, {
          method: route.method,
          json,
          ...(caller.secret === undefined ? {} : { token: caller.secret }),
        });
        const text = await res.text();
        const body: Json = text === '' ? {} : JSON.parse(text);
        const code: string | undefined = body?.error?.code;
        const refused = code !== undefined && AUTH_REFUSALS.has(code) ? code : null;
        const expected = expectedRefusal(route, caller);
        if (refused !== expected)
          mismatches.push(
            `${route.method} ${route.path} with ${caller.name}: expected ${expected ?? 'no auth refusal'}, got ${res.status} ${code ?? ''}`,
          );
        if (res.status >= 500) mismatches.push(`${route.method} ${route.path}: ${res.status}`);
      }
    }
    expect(mismatches).toEqual([]);
  }, 300_000);

  it('every tool needs exactly what the route it dispatches to needs', () => {
    for (const tool of TOOLS) {
      const openApiPath = tool.endpoint.path.replace(/:(\w+)/g, '{$1}');
      const route = routes.find((r) => r.method === tool.endpoint.method && r.path === openApiPath);
      expect(route, tool.name).toBeDefined();
      expect(route?.access, tool.name).toEqual(JSON.parse(JSON.stringify(tool.endpoint.access)));
    }
  });

  it('docs/security.md lists every route with its access, and nothing else', () => {
    const doc = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8');
    const rows = new Map<string, string>();
    for (const line of doc.split('\n')) {
      const m = /^\| `(GET|POST|PATCH|DELETE) ([^`]+)`\s*\| ([^|]+)\| ([^|]+)\|/.exec(line);
      if (m) rows.set(`${m[1]} ${m[2]}`, `${m[3].trim()} | ${m[4].trim()}`);
    }
    const expected = new Map(
      routes.map((r) => [
        `${r.method} ${r.path}`,
        r.access.kind === 'scoped'
          ? `\`${r.access.scope!.resource}:${r.access.scope!.access}\` | \`${r.access.permission}\``
          : `${r.access.kind} | —`,
      ]),
    );
    expect(Object.fromEntries(rows)).toEqual(Object.fromEntries(expected));
  });
});
