import { Client as PgClient } from 'pg';
import { afterAll, beforeAll } from 'vitest';
import type { AppConfig } from '@app/config';
import type { Json } from './mcp-peers.js';
import { startReplicaPair, type TestServer } from './test-server.js';

/**
 * What the confirmation, approval and task tests act on and look at: the demo organisation's
 * records through the REST API (as its owner), the ledger's rows through direct SQL, and two
 * replicas of one database.
 */

let seq = 0;

/** A fresh portal user created through the REST API (no invitation mail). */
export async function createPortalUser(
  t: TestServer,
  name = 'Temp Person',
  email?: string,
): Promise<{ id: string; name: string; email: string }> {
  seq += 1;
  const address = email ?? `temp.${Date.now().toString(36)}.${seq}@example.com`;
  const res = await t.request('/v1/portal-users', {
    method: 'POST',
    token: 'owner',
    json: { name, email: address, send_invitation: false },
  });
  const body: Json = await res.json();
  if (res.status !== 201)
    throw new Error(`create portal user: ${res.status} ${JSON.stringify(body)}`);
  return { id: body.id, name: body.name, email: body.email };
}

/** The HTTP status of `GET /v1/portal-users/{id}` as the owner: 200 while it exists, 404 after. */
export async function portalUserStatus(t: TestServer, id: string): Promise<number> {
  const res = await t.request(`/v1/portal-users/${id}`, { token: 'owner' });
  await res.body?.cancel();
  return res.status;
}

export async function accountStatus(t: TestServer, id: string): Promise<number> {
  const res = await t.request(`/v1/accounts/${id}`, { token: 'owner' });
  await res.body?.cancel();
  return res.status;
}

/** The demo account of that name (Acme), via the REST API. */
export async function accountIdByName(t: TestServer, name: string): Promise<string> {
  const page: Json = await (await t.request('/v1/accounts?limit=100', { token: 'owner' })).json();
  const id: unknown = page.data.find((a: Json) => a.name === name)?.id;
  if (typeof id !== 'string') throw new Error(`no account ${name}: ${JSON.stringify(page)}`);
  return id;
}

export async function portalUserIdByEmail(t: TestServer, email: string): Promise<string> {
  const page: Json = await (
    await t.request(`/v1/portal-users?q=${encodeURIComponent(email)}`, { token: 'owner' })
  ).json();
  const id: unknown = page.data.find((u: Json) => u.email === email)?.id;
  if (typeof id !== 'string') throw new Error(`no portal user ${email}: ${JSON.stringify(page)}`);
  return id;
}

/** Sets `tool`'s confirmation policy as the owner (PATCH, e.g. `{mode, expiry_seconds}`); its new version. */
export async function setConfirmationPolicy(
  t: TestServer,
  tool: string,
  body: Record<string, unknown>,
): Promise<number> {
  const res = await t.request(`/v1/mcp/confirmation-policies/${tool}`, {
    method: 'PATCH',
    token: 'owner',
    json: body,
  });
  const json: Json = await res.json();
  if (res.status !== 200) throw new Error(`set policy: ${res.status} ${JSON.stringify(json)}`);
  return json.version;
}

/** Makes the demo member `email` an admin as the owner: the second admin an approval needs. */
export async function promoteToAdmin(t: TestServer, email: string): Promise<void> {
  const members: Json = await (await t.request('/v1/members', { token: 'owner' })).json();
  const member = members.data.find((m: Json) => m.email === email);
  if (member === undefined) throw new Error(`no member ${email}`);
  const promoted = await t.request(`/v1/members/${member.user_id}`, {
    method: 'PATCH',
    token: 'owner',
    json: { role: 'admin' },
  });
  if (promoted.status !== 200) throw new Error(`promoting ${email} answered ${promoted.status}`);
}

/**
 * Puts `tool` under the `approval` policy (with `expirySeconds`, or the default expiry) after
 * making the demo member Max an admin: the second admin an approval needs. The policy's version.
 */
export async function requireApproval(
  t: TestServer,
  tool: string,
  expirySeconds?: number,
): Promise<number> {
  await promoteToAdmin(t, 'max.member@acme.test');
  return setConfirmationPolicy(t, tool, {
    mode: 'approval',
    ...(expirySeconds === undefined ? {} : { expiry_seconds: expirySeconds }),
  });
}

/** Audit events through the REST API (owner holds audit.read), e.g. `{action, resource_id}`. */
export async function auditEvents(t: TestServer, query: Record<string, string>): Promise<Json[]> {
  const qs = new URLSearchParams({ limit: '100', ...query }).toString();
  const res = await t.request(`/v1/audit-events?${qs}`, { token: 'owner' });
  const page: Json = await res.json();
  if (res.status !== 200) throw new Error(`audit events: ${res.status} ${JSON.stringify(page)}`);
  return page.data;
}

/** A direct connection to the test database (ledger rows, fixtures REST refuses to create). */
export type SqlClient = PgClient;

export async function openSql(url: string): Promise<SqlClient> {
  const client = new PgClient({ connectionString: url });
  await client.connect();
  return client;
}

export async function sqlRows<T = Json>(
  sql: SqlClient,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  const result = await sql.query(text, params);
  const rows: T[] = result.rows;
  return rows;
}

export async function ledgerStatus(sql: SqlClient, confirmationId: string): Promise<string | null> {
  const rows = await sqlRows<{ status: string }>(
    sql,
    'SELECT status FROM mcp_confirmations WHERE id = $1',
    [confirmationId],
  );
  return rows[0]?.status ?? null;
}

export async function ledgerCount(sql: SqlClient, where = 'TRUE', params: unknown[] = []) {
  const rows = await sqlRows<{ n: string }>(
    sql,
    `SELECT count(*)::text AS n FROM mcp_confirmations WHERE ${where}`,
    params,
  );
  return Number(rows[0].n);
}

/** Two replicas of one database and a direct SQL connection to it; `close()` ends all three. */
export interface SqlReplicaPair {
  a: TestServer;
  b: TestServer;
  sql: SqlClient;
  close(): Promise<void>;
}

/** {@link startReplicaPair} with `overrides`, plus {@link openSql} on their database. */
export async function startSqlReplicaPair(
  overrides: Partial<AppConfig> = {},
): Promise<SqlReplicaPair> {
  const pair = await startReplicaPair(overrides);
  let sql: SqlClient;
  try {
    sql = await openSql(pair.a.db.url);
  } catch (err) {
    await pair.close();
    throw err;
  }
  return {
    a: pair.a,
    b: pair.b,
    sql,
    close: async () => {
      try {
        await sql.end();
      } finally {
        await pair.close();
      }
    },
  };
}

/**
 * The file's {@link SqlReplicaPair}, with `overrides`: started before its tests (then `setUp` runs
 * on it: a policy, a second admin), closed after them. Its `a`, `b` and `sql` are there once the
 * tests run.
 */
export function sqlReplicaPairPerFile(
  overrides: Partial<AppConfig> = {},
  setUp: (pair: SqlReplicaPair) => Promise<void> = () => Promise.resolve(),
): Omit<SqlReplicaPair, 'close'> {
  let pair: SqlReplicaPair | undefined;
  beforeAll(async () => {
    pair = await startSqlReplicaPair(overrides);
    await setUp(pair);
  }, 180_000);
  afterAll(() => pair?.close());
  const started = (): SqlReplicaPair => {
    if (pair === undefined) throw new Error('the replica pair is started in beforeAll');
    return pair;
  };
  return {
    get a() {
      return started().a;
    },
    get b() {
      return started().b;
    },
    get sql() {
      return started().sql;
    },
  };
}

/**
 * The destructive tool the approval, task and `verified` specs put under a policy, and what it acts
 * on: it deletes a portal user. The specs reach both only through {@link gatedToolPairPerFile}
 * (`pair.tool`, `pair.newTarget`, `pair.targetStatus`, `pair.deletions`).
 */
const GATED_TOOL = 'delete_portal_user';
/** The kind of record {@link GATED_TOOL} deletes, as approvals and audit events name it. */
const GATED_TARGET_TYPE = 'portal_user';

/** How long {@link gatedToolPairPerFile}'s policy gives a person to decide. */
const GATED_EXPIRY_SECONDS = 600;

/**
 * How many calls race at once, split across both replicas, for the one approved or confirmed run
 * of the gated tool (retries of the call, or polls of its task): exactly one may run it.
 */
export const CONCURRENT_RETRIES = 20;

/** A portal user made for a test (no invitation mail). */
export type PortalUser = Awaited<ReturnType<typeof createPortalUser>>;

/**
 * Two replicas of one database with the gated tool under a policy, and what a test of that tool
 * acts on and looks at, bound to the tool and the pair.
 */
export interface GatedToolPair extends Omit<SqlReplicaPair, 'close'> {
  /** The gated tool's name (`delete_portal_user`). */
  readonly tool: string;
  /** What it deletes, as approvals and audit events name it (`portal_user`). */
  readonly targetType: string;
  /** The version of the tool's policy in force: set before the tests, then by `setPolicyExpiry`. */
  readonly policyVersion: number;
  /** A fresh target for the tool (a portal user called `name`), made on `a`. */
  newTarget(name: string): Promise<PortalUser>;
  /** The target as `on` (default `a`) serves it: 200 while it exists, 404 once deleted. */
  targetStatus(id: string, on?: TestServer): Promise<number>;
  /** The target's deletion events in the audit trail: one once the tool ran, none before. */
  deletions(targetId: string): Promise<Json[]>;
  /** The organisation's audit events as its owner reads them on `on` (default `a`). */
  auditEvents(query: Record<string, string>, on?: TestServer): Promise<Json[]>;
  /** The rows a query returns on the pair's database. */
  sqlRows<T = Json>(text: string, params?: unknown[]): Promise<T[]>;
  /** Puts the tool's policy anew (the file's mode, `expirySeconds`) as the owner; its new version. */
  setPolicyExpiry(expirySeconds: number): Promise<number>;
}

/**
 * The file's {@link SqlReplicaPair} (with `overrides`) with {@link GATED_TOOL} under `mode`, set on
 * `a` as the owner before the tests (`approval` first makes Max the second admin:
 * {@link requireApproval}); then `setUp` runs. The pair's methods act on that tool and its targets.
 */
export function gatedToolPairPerFile(
  mode: 'approval' | 'verified',
  options: {
    overrides?: Partial<AppConfig>;
    setUp?: (pair: SqlReplicaPair) => Promise<void> | void;
  } = {},
): GatedToolPair {
  let version: number | undefined;
  const pair = sqlReplicaPairPerFile(options.overrides, async (started) => {
    version =
      mode === 'approval'
        ? await requireApproval(started.a, GATED_TOOL, GATED_EXPIRY_SECONDS)
        : await setConfirmationPolicy(started.a, GATED_TOOL, {
            mode,
            expiry_seconds: GATED_EXPIRY_SECONDS,
          });
    await options.setUp?.(started);
  });
  return {
    get a() {
      return pair.a;
    },
    get b() {
      return pair.b;
    },
    get sql() {
      return pair.sql;
    },
    tool: GATED_TOOL,
    targetType: GATED_TARGET_TYPE,
    get policyVersion() {
      if (version === undefined) throw new Error('the policy is set in beforeAll');
      return version;
    },
    newTarget: (name) => createPortalUser(pair.a, name),
    targetStatus: (id, on = pair.a) => portalUserStatus(on, id),
    deletions: (targetId) =>
      auditEvents(pair.a, { action: `${GATED_TARGET_TYPE}.deleted`, resource_id: targetId }),
    auditEvents: (query, on = pair.a) => auditEvents(on, query),
    sqlRows: <T = Json>(text: string, params: unknown[] = []) => sqlRows<T>(pair.sql, text, params),
    setPolicyExpiry: async (expirySeconds) => {
      version = await setConfirmationPolicy(pair.a, GATED_TOOL, {
        mode,
        expiry_seconds: expirySeconds,
      });
      return version;
    },
  };
}
