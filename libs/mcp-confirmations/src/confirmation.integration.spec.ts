import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { Test } from '@nestjs/testing';
import { ClsModule, ClsService } from 'nestjs-cls';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditEventsRepository, AuditTrail } from '@app/audit-trail';
import { AppConfig, ConfigModule } from '@app/config';
import { DatabaseModule, dataSourceOptions } from '@app/database';
import { RequestContext, type CallerContext } from '@app/identity';
import { createTestDatabase, testPrincipal, type TestDatabase } from '@app/testing';
import { argumentsDigest } from '@app/common';
import { ConfirmationEvents } from './confirmation-events.js';
import { ConfirmationLedger } from './confirmation.ledger.js';
import {
  ConfirmationService,
  type AskInput,
  type RedeemBinding,
  type RedeemOutcome,
} from './confirmation.service.js';
import { ConfirmationUnavailableError } from './confirmation-unavailable.error.js';
import { McpConfirmationsModule } from './mcp-confirmations.module.js';
import { RequestStateCodec } from './request-state.codec.js';

const KEYS = [randomBytes(32).toString('hex')];
const ARGS = { id: 'f0a1c2d3-0000-4000-8000-000000000001' };
/** What the questions here are about, unless a test says otherwise: deleting portal user ARGS.id. */
const ABOUT = { tool: 'delete_portal_user', targetType: 'portal_user', targetId: ARGS.id };

interface Principal {
  organizationId: string;
  tokenId: string;
  userId: string;
}

interface Replica {
  ds: DataSource;
  service: ConfirmationService;
  ledger: ConfirmationLedger;
}

/**
 * The pool of one replica: on the embedded engine a single connection, as the app uses there
 * (ADR 0003: with more, statements of other connections interleave while a transaction — here a
 * change and its audit event — is open on its one session).
 */
const POOL_SIZE = process.env.DATABASE_URL === undefined ? 1 : 10;

/** One "replica": its own DataSource (own connection pool) and its own service instances. */
async function replica(url: string, poolSize = POOL_SIZE): Promise<Replica> {
  const ds = new DataSource({
    ...dataSourceOptions(url, poolSize),
    logging: false,
  });
  await ds.initialize();
  return wire(ds);
}

function wire(ds: DataSource): Replica {
  const ledger = new ConfirmationLedger(ds);
  const audit = new AuditTrail(
    new AuditEventsRepository(ds),
    new RequestContext(new ClsService(new AsyncLocalStorage())),
  );
  const service = new ConfirmationService(
    ledger,
    new RequestStateCodec(KEYS),
    new ConfirmationEvents(audit),
  );
  return { ds, service, ledger };
}

async function one<T>(ds: DataSource, sql: string, params: unknown[] = []): Promise<T> {
  const rows: T[] = await ds.query(sql, params);
  const first = rows[0];
  if (first === undefined) throw new Error(`no row: ${sql}`);
  return first;
}

/** Builders: an organisation with a person and a personal token, or another token / person in it. */
async function seedPrincipal(ds: DataSource, org?: string): Promise<Principal> {
  const tag = randomBytes(4).toString('hex');
  const organizationId =
    org ??
    (
      await one<{ id: string }>(
        ds,
        `INSERT INTO organizations (slug, name) VALUES ($1, $1) RETURNING id`,
        [`org-${tag}`],
      )
    ).id;
  const userId = (
    await one<{ id: string }>(
      ds,
      `INSERT INTO users (email, name) VALUES ($1, 'Olivia') RETURNING id`,
      [`o-${tag}@acme.test`],
    )
  ).id;
  const tokenId = await seedToken(ds, organizationId, userId);
  return { organizationId, tokenId, userId };
}

async function seedToken(ds: DataSource, organizationId: string, userId: string): Promise<string> {
  const row = await one<{ id: string }>(
    ds,
    `INSERT INTO api_tokens (organization_id, user_id, kind, name, token_prefix, secret_hash, scopes)
     VALUES ($1, $2, 'personal', 'agent', 'pat_test', $3, ARRAY['portal_users:write'])
     RETURNING id`,
    [organizationId, userId, randomBytes(32).toString('hex')],
  );
  return row.id;
}

/** The MCP call of `p` through its client: the actor of the confirmation's audit events. */
function callerOf(
  p: Principal,
  requestId = `req-${randomBytes(4).toString('hex')}`,
): CallerContext {
  return {
    principal: testPrincipal({
      ...p,
      tokenName: 'agent',
      scopes: ['portal_users:write'],
      clientName: 'claude-code',
      organizationSlug: 'org',
      userEmail: 'olivia@acme.test',
      userName: 'Olivia',
      membership: null,
    }),
    channel: 'mcp',
    clientName: 'claude-code',
    confirmationId: null,
    requestId,
  };
}

function askInput(p: Principal, over: Partial<AskInput> = {}): AskInput {
  const requestId = `req-${randomBytes(4).toString('hex')}`;
  return {
    ...p,
    ...ABOUT,
    args: ARGS,
    message: 'Delete portal user Ana Souza <ana@example.com>? This cannot be undone.',
    protocolVersion: '2026-07-28',
    clientName: 'claude-code',
    requestId,
    policy: { version: 0, expirySeconds: 600 },
    caller: callerOf(p, requestId),
    ...over,
  };
}

function bindingOf(p: Principal, over: Partial<RedeemBinding> = {}): RedeemBinding {
  return {
    ...p,
    tool: 'delete_portal_user',
    args: ARGS,
    policyVersion: 0,
    caller: callerOf(p),
    ...over,
  };
}

/** A row for the ledger alone (no service, no audit event): `p`'s form question, a minute long. */
function ledgerRow(
  p: Principal,
  over: Partial<Parameters<ConfirmationLedger['create']>[0]> = {},
): Parameters<ConfirmationLedger['create']>[0] {
  return {
    ...p,
    ...ABOUT,
    argumentsDigest: argumentsDigest(ARGS),
    message: 'Delete portal user?',
    protocolVersion: '2026-07-28',
    clientName: null,
    requestId: 'req-table',
    ttlSeconds: 60,
    mode: 'form',
    policyVersion: 0,
    ...over,
  };
}

interface EventRow {
  action: string;
  actor_user_id: string;
  token_id: string;
  channel: string;
  client_name: string | null;
  resource_type: string;
  resource_label: string;
  confirmation_id: string;
  changes: Record<string, { before: unknown; after: unknown }>;
}

/** The audit events about one confirmation, oldest first. */
function eventsAbout(ds: DataSource, confirmationId: string): Promise<EventRow[]> {
  return ds.query(
    `SELECT action, actor_user_id, token_id, channel, client_name, resource_type, resource_label,
            confirmation_id, changes
       FROM audit_events WHERE resource_id = $1 ORDER BY occurred_at, seq, id`,
    [confirmationId],
  );
}

/** The audit chains a confirmation ends with: used once, declined, or left to lapse. */
const CONSUMED = ['confirmation.requested', 'confirmation.confirmed', 'confirmation.executed'];
const DECLINED = ['confirmation.requested', 'confirmation.declined'];
const EXPIRED = ['confirmation.requested', 'confirmation.expired'];

async function actionsAbout(ds: DataSource, confirmationId: string): Promise<string[]> {
  return (await eventsAbout(ds, confirmationId)).map((e) => e.action);
}

/** Marks a row lapsed by the database's clock (as if its expiry passed). */
async function markLapsed(ds: DataSource, confirmationId: string): Promise<void> {
  await ds.query(
    `UPDATE mcp_confirmations SET created_at = now() - interval '20 minutes', expires_at = now() - interval '1 second'
      WHERE id = $1`,
    [confirmationId],
  );
}

async function statusOf(
  ds: DataSource,
  id: string,
): Promise<{ status: string; decided_at: Date | null }> {
  return one(ds, `SELECT status, decided_at FROM mcp_confirmations WHERE id = $1`, [id]);
}

function tally(outcomes: RedeemOutcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[o.kind] = (counts[o.kind] ?? 0) + 1;
  return counts;
}

/** Rejects with exactly ConfirmationUnavailableError (not a driver or TypeORM error). */
async function expectUnavailable(p: Promise<unknown>): Promise<void> {
  const err: unknown = await p.then(
    () => new Error('expected a rejection'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfirmationUnavailableError);
  expect(err).toMatchObject({ code: 'confirmation_unavailable' });
}

/** A TCP hop between a DataSource and the database that can be cut, like a database going away. */
async function cuttableProxy(targetUrl: string): Promise<{ url: string; cut(): Promise<void> }> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');
  const url = new URL(targetUrl);
  url.port = String(address.port);
  return {
    url: url.toString(),
    cut: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

describe('confirmation ledger and service on a real database', () => {
  let db: TestDatabase;
  let a: Replica;
  let b: Replica;
  let principal: Principal;

  beforeAll(async () => {
    db = await createTestDatabase();
    a = await replica(db.url);
    b = await replica(db.url);
    principal = await seedPrincipal(a.ds);
  });

  afterAll(async () => {
    await a?.ds.destroy();
    await b?.ds.destroy();
    await db?.dispose();
  });

  /**
   * Presents `requestState` with `binding` in turn on each replica named, with each answer (or
   * without one: `inspect`), and asserts that every presentation comes to `expected`.
   */
  async function expectPresentations(
    requestState: string,
    binding: RedeemBinding,
    expected: RedeemOutcome,
    presentations: Array<['a' | 'b', 'accept' | 'decline' | 'inspect']>,
  ): Promise<void> {
    for (const [name, answer] of presentations) {
      const { service } = name === 'a' ? a : b;
      const outcome =
        answer === 'inspect'
          ? await service.inspect(requestState, binding)
          : await service.redeem(requestState, binding, answer);
      expect(outcome, `${answer} on ${name}`).toEqual(expected);
    }
  }

  it('ask records a pending row bound to the caller, the tool and the arguments digest', async () => {
    const input = askInput(principal);
    const asked = await a.service.ask(input);
    const row = await a.ledger.findById(principal.organizationId, asked.confirmationId);
    expect(row).toMatchObject({
      id: asked.confirmationId,
      ...principal,
      ...ABOUT,
      argumentsDigest: argumentsDigest(ARGS),
      message: input.message,
      status: 'pending',
      protocolVersion: '2026-07-28',
      clientName: 'claude-code',
      decidedAt: null,
      toolCallId: null,
      requestId: input.requestId,
    });
    const ttl = (row!.expiresAt.getTime() - row!.createdAt.getTime()) / 1000;
    expect(ttl).toBeCloseTo(600, 3);
    expect(asked.expiresAt).toEqual(row!.expiresAt);
    // Audited with the row: the person through their token and client, on this confirmation.
    expect(await eventsAbout(a.ds, asked.confirmationId)).toEqual([
      {
        action: 'confirmation.requested',
        actor_user_id: principal.userId,
        token_id: principal.tokenId,
        channel: 'mcp',
        client_name: 'claude-code',
        resource_type: 'confirmation',
        resource_label: `delete_portal_user portal_user ${ARGS.id}`,
        confirmation_id: asked.confirmationId,
        changes: {
          status: { before: null, after: 'pending' },
          mode: { before: null, after: 'form' },
          tool: { before: null, after: 'delete_portal_user' },
          target: { before: null, after: `portal_user ${ARGS.id}` },
          policy_version: { before: null, after: 0 },
          expires_at: { before: null, after: row!.expiresAt.toISOString() },
        },
      },
    ]);
  });

  it('accept → consumed once; the same state again → replayed (accept, decline or no answer)', async () => {
    const { requestState, confirmationId } = await a.service.ask(askInput(principal));
    const binding = bindingOf(principal);
    expect(await b.service.inspect(requestState, binding)).toEqual({
      kind: 'pending',
      confirmationId,
    });
    expect(await a.service.redeem(requestState, binding, 'accept')).toEqual({
      kind: 'consumed',
      confirmationId,
    });
    const after = await statusOf(a.ds, confirmationId);
    expect(after.status).toBe('consumed');
    expect(after.decided_at).toBeInstanceOf(Date);

    await expectPresentations(requestState, binding, { kind: 'replayed', confirmationId }, [
      ['a', 'accept'],
      ['b', 'accept'],
      ['b', 'decline'],
      ['b', 'inspect'],
    ]);
    expect((await statusOf(a.ds, confirmationId)).status).toBe('consumed');
    // The form's yes and its use, once, whatever was presented after.
    expect(await actionsAbout(a.ds, confirmationId)).toEqual(CONSUMED);
  });

  it('decline → declined, the row closed; presented again → replayed, and it can no longer be accepted', async () => {
    const { requestState, confirmationId } = await a.service.ask(askInput(principal));
    const binding = bindingOf(principal);
    expect(await a.service.redeem(requestState, binding, 'decline')).toEqual({
      kind: 'declined',
      confirmationId,
    });
    const after = await statusOf(a.ds, confirmationId);
    expect(after).toMatchObject({ status: 'declined' });
    expect(after.decided_at).toBeInstanceOf(Date);
    await expectPresentations(requestState, binding, { kind: 'replayed', confirmationId }, [
      ['b', 'accept'],
      ['b', 'decline'],
    ]);
    expect((await statusOf(a.ds, confirmationId)).status).toBe('declined');
    const events = await eventsAbout(a.ds, confirmationId);
    expect(events.map((e) => e.action)).toEqual(DECLINED);
    expect(events[1]).toMatchObject({
      actor_user_id: principal.userId,
      client_name: 'claude-code',
      changes: { status: { before: 'pending', after: 'declined' } },
    });
  });

  it('a row lapsed in the database → expired (marked so, not decided), whatever the answer', async () => {
    const { requestState, confirmationId } = await a.service.ask(askInput(principal));
    await markLapsed(a.ds, confirmationId);
    const binding = bindingOf(principal);
    expect(await a.service.redeem(requestState, binding, 'accept')).toEqual({
      kind: 'expired',
      confirmationId,
    });
    expect(await statusOf(a.ds, confirmationId)).toEqual({ status: 'expired', decided_at: null });
    await expectPresentations(requestState, binding, { kind: 'expired', confirmationId }, [
      ['b', 'decline'],
      ['b', 'inspect'],
    ]);
    expect((await statusOf(a.ds, confirmationId)).status).toBe('expired');

    // Lapsed and still pending, seen without an answer: expired too, and marked.
    const second = await a.service.ask(askInput(principal));
    await markLapsed(a.ds, second.confirmationId);
    expect(await a.service.inspect(second.requestState, binding)).toEqual({
      kind: 'expired',
      confirmationId: second.confirmationId,
    });
    expect((await statusOf(a.ds, second.confirmationId)).status).toBe('expired');
    // Closed once each, by whichever presentation found it lapsed first.
    for (const id of [confirmationId, second.confirmationId]) {
      const events = await eventsAbout(a.ds, id);
      expect(events.map((e) => e.action)).toEqual(EXPIRED);
      expect(events[1]?.changes).toMatchObject({
        status: { before: 'pending', after: 'expired' },
        reason: { after: 'not answered before it expired' },
      });
    }
  });

  it('race: concurrent retries of a lapsed confirmation through two replicas → one expired event', async () => {
    for (let round = 0; round < 3; round++) {
      const { requestState, confirmationId } = await a.service.ask(askInput(principal));
      await markLapsed(a.ds, confirmationId);
      const binding = bindingOf(principal);
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, i) => {
          const r = i % 2 === 0 ? a : b;
          if (i % 3 === 0) return r.service.inspect(requestState, binding);
          return r.service.redeem(requestState, binding, i % 3 === 1 ? 'accept' : 'decline');
        }),
      );
      expect(tally(outcomes)).toEqual({ expired: 20 });
      expect(await actionsAbout(a.ds, confirmationId)).toEqual(EXPIRED);
    }
  });

  it('with a TTL of 1 s the state lapses by itself: expired, and the row is closed', async () => {
    const short = wire(a.ds);
    const { requestState, confirmationId, expiresAt } = await short.service.ask(
      askInput(principal, { policy: { version: 0, expirySeconds: 1 } }),
    );
    const lapse = Math.ceil(expiresAt.getTime() / 1000) * 1000 + 50 - Date.now();
    await new Promise((r) => setTimeout(r, Math.max(lapse, 0)));
    expect(await short.service.redeem(requestState, bindingOf(principal), 'accept')).toEqual({
      kind: 'expired',
      confirmationId,
    });
    expect(await statusOf(a.ds, confirmationId)).toEqual({ status: 'expired', decided_at: null });
    expect(await actionsAbout(a.ds, confirmationId)).toEqual(EXPIRED);
  });

  it('another token, person, organisation, tool or arguments → tampered, and the row stays pending', async () => {
    const { requestState, confirmationId } = await a.service.ask(askInput(principal));
    const otherToken = await seedToken(a.ds, principal.organizationId, principal.userId);
    const colleague = await seedPrincipal(a.ds, principal.organizationId);
    const stranger = await seedPrincipal(a.ds);

    const attempts: Array<[RedeemBinding, Extract<RedeemOutcome, { kind: 'tampered' }>['reason']]> =
      [
        [bindingOf({ ...principal, tokenId: otherToken }), 'other_token'],
        [bindingOf({ ...principal, userId: colleague.userId }), 'other_user'],
        [bindingOf(colleague), 'other_token'],
        [bindingOf(stranger), 'other_organization'],
        [bindingOf(principal, { tool: 'delete_account' }), 'other_tool'],
        [
          bindingOf(principal, { args: { id: 'f0a1c2d3-0000-4000-8000-000000000002' } }),
          'other_arguments',
        ],
        [bindingOf(principal, { args: { ...ARGS, hard: true } }), 'other_arguments'],
      ];
    for (const [binding, reason] of attempts) {
      await expectPresentations(requestState, binding, { kind: 'tampered', reason }, [
        ['a', 'accept'],
        ['b', 'decline'],
        ['b', 'inspect'],
      ]);
    }
    expect(await statusOf(a.ds, confirmationId)).toEqual({ status: 'pending', decided_at: null });
    // Refused before the ledger: nothing about it was audited but the question.
    expect(await actionsAbout(a.ds, confirmationId)).toEqual(['confirmation.requested']);
    // Still redeemable by its rightful owner (so nothing was spent).
    expect(await b.service.redeem(requestState, bindingOf(principal), 'accept')).toEqual({
      kind: 'consumed',
      confirmationId,
    });
  });

  it('the ledger itself refuses a row bound to something else (defence in depth below the MAC)', async () => {
    const row = await a.ledger.create(
      ledgerRow(principal, {
        tool: 'delete_account',
        targetType: 'account',
        message: 'Delete account?',
        requestId: 'req-x',
      }),
    );
    const wrong = {
      ...principal,
      tool: 'delete_portal_user',
      argumentsDigest: argumentsDigest(ARGS),
    };
    expect(await a.ledger.consume(row.id, wrong)).toMatchObject({ outcome: 'mismatch' });
    expect(await a.ledger.decline(row.id, wrong)).toMatchObject({ outcome: 'mismatch' });
    expect(await a.ledger.inspect(row.id, wrong)).toMatchObject({ outcome: 'mismatch' });
    expect(await a.ledger.consume(randomUUID(), wrong)).toEqual({ outcome: 'missing' });
    expect(await a.ledger.consume('not-a-uuid', wrong)).toEqual({ outcome: 'missing' });
    expect((await statusOf(a.ds, row.id)).status).toBe('pending');
  });

  it('race: 50 concurrent accepts of one confirmation through two replicas → exactly one consumed', async () => {
    for (let round = 0; round < 3; round++) {
      const { requestState, confirmationId } = await a.service.ask(askInput(principal));
      const binding = bindingOf(principal);
      const outcomes = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          (i % 2 === 0 ? a : b).service.redeem(requestState, binding, 'accept'),
        ),
      );
      expect(tally(outcomes)).toEqual({ consumed: 1, replayed: 49 });
      expect(
        outcomes.every((o) => 'confirmationId' in o && o.confirmationId === confirmationId),
      ).toBe(true);
      expect((await statusOf(a.ds, confirmationId)).status).toBe('consumed');
      expect(await actionsAbout(a.ds, confirmationId)).toEqual(CONSUMED);
    }
  });

  it('race: concurrent accepts and declines of one confirmation → exactly one decision, the rest replayed', async () => {
    const { requestState, confirmationId } = await a.service.ask(askInput(principal));
    const binding = bindingOf(principal);
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? a : b).service.redeem(
          requestState,
          binding,
          i % 4 < 2 ? 'accept' : 'decline',
        ),
      ),
    );
    const counts = tally(outcomes);
    expect((counts.consumed ?? 0) + (counts.declined ?? 0)).toBe(1);
    expect(counts.replayed).toBe(39);
    const winner = outcomes.find((o) => o.kind === 'consumed' || o.kind === 'declined');
    expect((await statusOf(a.ds, confirmationId)).status).toBe(winner?.kind);
    expect(await actionsAbout(a.ds, confirmationId)).toEqual(
      winner?.kind === 'consumed' ? CONSUMED : DECLINED,
    );
  });

  it('distinct confirmations consumed concurrently on two replicas all succeed', async () => {
    const asked = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).service.ask(askInput(principal))),
    );
    const outcomes = await Promise.all(
      asked.map((x, i) =>
        (i % 2 ? b : a).service.redeem(x.requestState, bindingOf(principal), 'accept'),
      ),
    );
    expect(tally(outcomes)).toEqual({ consumed: 30 });
    const rows = await a.ds.query<Array<{ n: string }>>(
      `SELECT count(*) AS n FROM mcp_confirmations WHERE id = ANY($1::uuid[]) AND status = 'consumed'`,
      [asked.map((x) => x.confirmationId)],
    );
    expect(Number(rows[0]?.n)).toBe(30);
  });

  it('the ledger links a consumed confirmation to one call; findById is scoped to the organisation', async () => {
    const { requestState, confirmationId } = await a.service.ask(askInput(principal));
    const call = randomUUID();
    expect(await a.ledger.attachToolCall(confirmationId, call)).toBe(false); // still pending
    await a.service.redeem(requestState, bindingOf(principal), 'accept');
    expect(await a.ledger.attachToolCall(confirmationId, call)).toBe(true);
    expect(await b.ledger.attachToolCall(confirmationId, call)).toBe(true); // idempotent
    expect(await b.ledger.attachToolCall(confirmationId, randomUUID())).toBe(false); // already another
    expect(await a.ledger.findById(principal.organizationId, confirmationId)).toMatchObject({
      status: 'consumed',
      toolCallId: call,
    });
    expect(await a.ledger.findById(randomUUID(), confirmationId)).toBeNull();
    expect(await a.ledger.findById(principal.organizationId, 'nope')).toBeNull();
  });

  it('the table enforces its vocabulary and follows its organisation', async () => {
    const owner = await seedPrincipal(a.ds);
    // The ledger alone (no audit event): an organisation with an audit trail is never deleted.
    const { id: confirmationId } = await a.ledger.create(ledgerRow(owner));
    await expect(
      a.ds.query(`UPDATE mcp_confirmations SET status = 'approved' WHERE id = $1`, [
        confirmationId,
      ]),
    ).rejects.toThrow(/ck_mcp_confirmations_status/);
    await expect(
      a.ds.query(`UPDATE mcp_confirmations SET status = 'consumed' WHERE id = $1`, [
        confirmationId,
      ]),
    ).rejects.toThrow(/ck_mcp_confirmations_decided/);
    await a.ds.query(`DELETE FROM organizations WHERE id = $1`, [owner.organizationId]);
    expect(
      await a.ds.query(`SELECT id FROM mcp_confirmations WHERE id = $1`, [confirmationId]),
    ).toEqual([]);
  });

  it('the module wires the service from AppConfig and the app connection', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        // oxlint-disable-next-line typescript/no-unsafe-class-instance-assignment -- the module's own options shape
        ClsModule.forRoot({ global: true }),
        ConfigModule.forRoot(Object.assign(new AppConfig(), { serverSecretKeys: KEYS })),
        DatabaseModule.forRoot(db.url, 2),
        McpConfirmationsModule,
      ],
    }).compile();
    await moduleRef.init();
    try {
      const service = moduleRef.get(ConfirmationService);
      const { requestState, confirmationId } = await service.ask(askInput(principal));
      expect(await a.service.redeem(requestState, bindingOf(principal), 'accept')).toEqual({
        kind: 'consumed',
        confirmationId,
      });
      expect(await actionsAbout(a.ds, confirmationId)).toEqual(CONSUMED);
    } finally {
      await moduleRef.close();
    }
  });

  describe('store down', () => {
    it('the database goes away after start: ask, redeem and inspect refuse with ConfirmationUnavailableError', async () => {
      const proxy = await cuttableProxy(db.url);
      const r = await replica(proxy.url, 2);
      try {
        const before = await r.service.ask(askInput(principal)); // works while reachable
        await proxy.cut();

        await expectUnavailable(r.service.ask(askInput(principal)));
        await expectUnavailable(
          r.service.redeem(before.requestState, bindingOf(principal), 'accept'),
        );
        await expectUnavailable(
          r.service.redeem(before.requestState, bindingOf(principal), 'decline'),
        );
        await expectUnavailable(r.service.inspect(before.requestState, bindingOf(principal)));
        // The MAC and binding are checked before the database: a forged state is still refused as such.
        expect(
          await r.service.redeem(`${before.requestState}x`, bindingOf(principal), 'accept'),
        ).toMatchObject({
          kind: 'tampered',
        });
        // Nothing was spent: the confirmation is still pending for a replica that can reach the store.
        expect((await statusOf(a.ds, before.confirmationId)).status).toBe('pending');
      } finally {
        await r.ds.destroy().catch(() => undefined);
      }
    });

    it('an unreachable or destroyed DataSource: ConfirmationUnavailableError, nothing of another type', async () => {
      const unreachable = new DataSource({
        ...dataSourceOptions('postgres://postgres@127.0.0.1:1/x', 1),
      });
      await expect(unreachable.initialize()).rejects.toThrow(/ECONNREFUSED/);
      const never = wire(unreachable);

      const destroyedDs = new DataSource({
        ...dataSourceOptions(db.url, 1),
      });
      await destroyedDs.initialize();
      const destroyed = wire(destroyedDs);
      const asked = await destroyed.service.ask(askInput(principal));
      await destroyedDs.destroy();

      for (const r of [never, destroyed]) {
        await expectUnavailable(r.service.ask(askInput(principal)));
        await expectUnavailable(
          r.service.redeem(asked.requestState, bindingOf(principal), 'accept'),
        );
        await expectUnavailable(r.service.inspect(asked.requestState, bindingOf(principal)));
      }
    });
  });
});
