import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashTokenSecret } from '@app/identity';
import { createTestDatabase, type TestDatabase } from '@app/testing';
import { coverHistory } from '../support/history-partitions.js';

/** The built `admin` command (npm run admin), run as a process against a fresh database. */
const ROOT = resolve(import.meta.dirname, '../..');
const ADMIN = resolve(ROOT, 'dist/apps/server/src/admin.js');
const run = promisify(execFile);

/** `--name value` for each option, in the order given. */
function flags(options: Record<string, string>): string[] {
  return Object.entries(options).flatMap(([name, value]) => [`--${name}`, value]);
}

describe('npm run admin (the built command, a fresh database)', () => {
  let db: TestDatabase;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    db = await createTestDatabase();
    env = {
      PATH: process.env.PATH,
      DATABASE_URL: db.url,
      SERVER_SECRET_KEYS: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'error',
    };
  }, 240_000);
  afterAll(async () => db?.dispose());

  async function admin(...args: string[]): Promise<{ code: number; out: string; err: string }> {
    try {
      const { stdout, stderr } = await run(process.execPath, [ADMIN, ...args], { env });
      return { code: 0, out: stdout, err: stderr };
    } catch (e) {
      // oxlint-disable-next-line typescript/no-unsafe-type-assertion -- execFile's rejection carries code, stdout and stderr
      const f = e as { code: number; stdout: string; stderr: string };
      return { code: f.code, out: f.stdout, err: f.stderr };
    }
  }

  async function query<T>(text: string, params: unknown[] = []): Promise<T[]> {
    const c = new Client({ connectionString: db.url });
    await c.connect();
    try {
      // oxlint-disable-next-line typescript/no-unsafe-type-assertion -- the test's own SQL names the row shape
      return (await c.query(text, params)).rows as T[];
    } finally {
      await c.end();
    }
  }

  it('org:create makes the organisation, its owner, a token shown once and a sign-in link', async () => {
    const r = await admin(
      'org:create',
      ...flags({
        name: 'Initech Ltd',
        'owner-email': 'peter@initech.example',
        'owner-name': 'Peter Gibbons',
      }),
    );
    expect(r.code, r.err).toBe(0);
    const out = JSON.parse(r.out);
    expect(out.organization).toMatchObject({ slug: 'initech-ltd', name: 'Initech Ltd' });
    expect(out.owner).toMatchObject({
      email: 'peter@initech.example',
      name: 'Peter Gibbons',
      created: true,
    });
    expect(out.token.secret).toMatch(/^pat_/);
    expect(out.sign_in_link.url).toMatch(/\/signin\/link\?token=/);
    const [m] = await query<{ role: string; status: string }>(
      `SELECT role, status FROM memberships WHERE organization_id = $1 AND user_id = $2`,
      [out.organization.id, out.owner.id],
    );
    expect(m).toEqual({ role: 'owner', status: 'active' });
    const [t] = await query<{ kind: string; secret_hash: string }>(
      `SELECT kind, secret_hash FROM api_tokens WHERE id = $1`,
      [out.token.id],
    );
    expect(t).toEqual({ kind: 'personal', secret_hash: hashTokenSecret(out.token.secret) });

    const again = await admin(
      'org:create',
      ...flags({ name: 'Initech Ltd', 'owner-email': 'x@initech.example' }),
    );
    expect(again.code).toBe(3);
    expect(again.err).toContain('already exists');
  }, 240_000);

  it('user:add and token:create for scripts; clear errors and exit codes', async () => {
    const added = await admin(
      'user:add',
      ...flags({ org: 'initech-ltd', email: 'milton@initech.example', role: 'viewer' }),
    );
    expect(added.code, added.err).toBe(0);
    expect(JSON.parse(added.out).user).toMatchObject({
      email: 'milton@initech.example',
      role: 'viewer',
      created: true,
    });
    expect(
      (await admin('user:add', '--org', 'initech-ltd', '--email', 'milton@initech.example')).code,
    ).toBe(3);

    const token = await admin(
      'token:create',
      ...flags({
        org: 'initech-ltd',
        email: 'milton@initech.example',
        name: 'report',
        scopes: 'audit:read',
        'expires-days': '30',
      }),
    );
    expect(token.code, token.err).toBe(0);
    expect(JSON.parse(token.out).token).toMatchObject({ name: 'report', scopes: ['audit:read'] });

    const cases: Array<[string[], number, string]> = [
      [
        ['token:create', '--org', 'nowhere', '--email', 'a@b.example', '--name', 'n'],
        4,
        'No organisation',
      ],
      [
        ['token:create', '--org', 'initech-ltd', '--email', 'stranger@x.example', '--name', 'n'],
        4,
        'not a member',
      ],
      [
        [
          'token:create',
          '--org',
          'initech-ltd',
          '--email',
          'milton@initech.example',
          '--name',
          'n',
          '--scopes',
          'root',
        ],
        2,
        '--scopes',
      ],
      [['org:create', '--name', 'X', '--owner-email', 'not-an-email'], 2, '--owner-email'],
      [['org:create', '--owner-email', 'a@b.example'], 2, '--name is required'],
      [
        ['user:add', '--org', 'initech-ltd', '--email', 'a@b.example', '--role', 'god'],
        2,
        '--role',
      ],
      [['frobnicate'], 2, 'unknown command'],
      [['org:create', '--bogus'], 2, 'usage'],
    ];
    // Each case is a process of its own that changes nothing: they run side by side.
    const answers = await Promise.all(cases.map(([args]) => admin(...args)));
    cases.forEach(([args, code, message], i) => {
      expect(answers[i].code, args.join(' ')).toBe(code);
      expect(answers[i].err, args.join(' ')).toContain(message);
    });
  }, 240_000);

  it('every write leaves audit events like the REST API’s, with the command as the actor, never a secret', async () => {
    type Event = {
      action: string;
      actor_type: string;
      actor_name: string | null;
      actor_user_id: string | null;
      token_id: string | null;
      channel: string;
      resource_label: string | null;
      changes: Record<string, { before: unknown; after: unknown }>;
    };
    const events = await query<Event>(
      `SELECT e.action, e.actor_type, e.actor_name, e.actor_user_id, e.token_id, e.channel,
              e.resource_label, e.changes
         FROM audit_events e JOIN organizations o ON o.id = e.organization_id
        WHERE o.slug = 'initech-ltd' ORDER BY e.occurred_at, e.seq, e.id`,
    );
    // Exactly these: the refused commands above changed nothing and so recorded nothing.
    expect(events.map((e) => [e.action, e.actor_name, e.resource_label])).toEqual([
      ['organization.created', 'npm run admin org:create', 'Initech Ltd'],
      ['member.added', 'npm run admin org:create', 'peter@initech.example'],
      ['token.created', 'npm run admin org:create', 'Owner (created by admin org:create)'],
      ['member.added', 'npm run admin user:add', 'milton@initech.example'],
      ['token.created', 'npm run admin token:create', 'report'],
    ]);
    for (const e of events) {
      expect(e).toMatchObject({
        actor_type: 'admin_command',
        channel: 'cli',
        actor_user_id: null,
        token_id: null,
      });
      expect(JSON.stringify(e.changes)).not.toMatch(/pat_/);
    }
    expect(events[3].changes.role).toEqual({ before: null, after: 'viewer' });
    expect(events[4].changes.scopes).toEqual({ before: null, after: ['audit:read'] });
  }, 60_000);

  it('audit:export streams the organisation’s events oldest first, one JSON object a line', async () => {
    // Events older than the minute the export holds back: the org:create events, moved back an hour
    // (the table refuses updates, so they are copied at the earlier time under new ids).
    await coverHistory(
      db.url,
      new Date(Date.now() - 2 * 3_600_000).toISOString(),
      new Date().toISOString(),
    );
    const c = new Client({ connectionString: db.url });
    await c.connect();
    try {
      await c.query(
        `INSERT INTO audit_events (organization_id, occurred_at, actor_type, channel, action, resource_type,
                                   resource_id, changes, actor_name, resource_label)
         SELECT organization_id, occurred_at - interval '1 hour', actor_type, channel, action, resource_type,
                resource_id, changes, actor_name, resource_label
           FROM audit_events WHERE organization_id = (SELECT id FROM organizations WHERE slug = 'initech-ltd')`,
      );
    } finally {
      await c.end();
    }
    const since = new Date(Date.now() - 3 * 3_600_000).toISOString();
    const { code, out } = await admin('audit:export', '--org', 'initech-ltd', '--since', since);
    expect(code).toBe(0);
    const lines = out.split('\n');
    expect(lines.pop()).toBe('');
    const events = lines.map((l): Record<string, unknown> => JSON.parse(l));
    expect(events.length).toBeGreaterThanOrEqual(3);
    expect(events.map((e) => e.action).slice(0, 3)).toEqual([
      'organization.created',
      'member.added',
      'token.created',
    ]);
    // The API's fields, in its order.
    expect(Object.keys(events[0]).slice(0, 3)).toEqual(['id', 'occurred_at', 'actor_type']);
    const times = events.map((e) => String(e.occurred_at));
    expect(times).toEqual([...times].sort());
    expect(
      await admin('audit:export', '--org', 'initech-ltd', '--since', 'yesterday'),
    ).toMatchObject({ code: 2 });
    expect(await admin('audit:export', '--org', 'no-such-org')).toMatchObject({ code: 4 });
  }, 60_000);

  it("the README's invocation (npm run …) prints the JSON alone on stdout, so `| jq` works", async () => {
    // The first org:create line of the README's admin section, run as written (by a shell, in the
    // repository), with another organisation name. npm's banner would make stdout unparseable.
    const line = readFileSync(resolve(ROOT, 'README.md'), 'utf8')
      .split('\n')
      .find((l) => /^npm run .*admin -- org:create /.test(l));
    expect(line).toBeDefined();
    const command = String(line)
      .replace(/--name '[^']*'/, "--name 'Jq Check'")
      .replace(/--owner-email \S+/, '--owner-email jq@check.example');
    const { stdout } = await run('sh', ['-c', command], { cwd: ROOT, env });
    expect(JSON.parse(stdout)).toMatchObject({ organization: { slug: 'jq-check' } });
  }, 60_000);
});
