import 'reflect-metadata';
import { once } from 'node:events';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ClsModule } from 'nestjs-cls';
import { isEmail } from 'class-validator';
import { AdminCommandsModule, OrganizationSetup } from '@app/admin-commands';
import { AppConfig, ConfigError, ConfigModule, loadConfig } from '@app/config';
import { LocalMailDrop } from '@app/mail';
import { DatabaseModule, EmbeddedPostgres, migrate } from '@app/database';
import { DomainError } from '@app/errors';
import { isScope, ROLES, SCOPES } from '@app/access-vocabulary';

/**
 * `admin.js <command> [options]` (`npm run -s admin -- …`: `-s` keeps npm's banner off stdout): the first organisation and its owner in
 * production, people and tokens for scripts. Needs only DATABASE_URL (absent: the embedded
 * database under DATA_DIR; stop the server first). Prints JSON on stdout; errors on stderr.
 * Exit codes: 0 done, 2 bad usage or input, 3 already exists, 4 not found, 1 anything else
 * (e.g. database unreachable, migrations pending).
 */

const USAGE = `usage: npm run -s admin -- <command> [options]
  org:create  --name <name> --owner-email <email> [--owner-name <name>] [--slug <slug>]
              [--token-name <name>] [--token-expires-days <n>]
  user:add    --org <slug> --email <email> [--name <name>] [--role owner|admin|member|viewer]
  token:create --org <slug> --email <member email> --name <token name>
              [--scopes <a,b,…>] [--expires-days <n>]
  audit:export --org <slug> [--since <RFC 3339>] [--until <RFC 3339>]
              the organisation's audit events, oldest first, one JSON object a line (NDJSON,
              the fields of GET /v1/audit-events/export); until defaults to a minute ago
  mail:show   --email <email>   the newest mail to this address in this machine's local mail
              drop (DATA_DIR/mail: sign-in links when no SMTP_URL is set, outside production)`;

class UsageError extends Error {}

type PresetRole = 'owner' | 'admin' | 'member' | 'viewer';
const isPresetRole = (role: string): role is PresetRole =>
  role !== 'custom' && ROLES.some((r) => r === role);

const EXIT: Record<string, number> = { CONFLICT: 3, NOT_FOUND: 4, VALIDATION_ERROR: 2 };

@Module({})
class AdminAppModule {
  static forRoot(config: AppConfig, databaseUrl: string): DynamicModule {
    return {
      module: AdminAppModule,
      imports: [
        ConfigModule.forRoot(config),
        // oxlint-disable-next-line typescript/no-unsafe-class-instance-assignment -- Nest's documented options object
        ClsModule.forRoot({ global: true }),
        // One connection: the commands are sequential, and a statement issued outside the
        // command's transaction while it is open then fails within the connect timeout on every
        // engine (on a bigger pool it would pass on Postgres and block the embedded engine, which
        // serialises connections while a transaction is open).
        DatabaseModule.forRoot(databaseUrl, 1),
        AdminCommandsModule,
      ],
    };
  }
}

const OPTIONS = {
  name: { type: 'string' },
  slug: { type: 'string' },
  'owner-email': { type: 'string' },
  'owner-name': { type: 'string' },
  'token-name': { type: 'string' },
  'token-expires-days': { type: 'string' },
  org: { type: 'string' },
  email: { type: 'string' },
  role: { type: 'string' },
  scopes: { type: 'string' },
  'expires-days': { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  help: { type: 'boolean' },
} as const;

function required(value: string | undefined, flag: string): string {
  const v = value?.trim();
  if (v === undefined || v === '') throw new UsageError(`--${flag} is required`);
  if (/\p{Cc}/u.test(v)) throw new UsageError(`--${flag} must not contain control characters`);
  if (v.length > 200) throw new UsageError(`--${flag} must be at most 200 characters`);
  return v;
}

function email(value: string | undefined, flag: string): string {
  const v = required(value, flag);
  if (!isEmail(v)) throw new UsageError(`--${flag} must be an e-mail address (got "${v}")`);
  return v;
}

function expiry(value: string | undefined, flag: string): Date | null {
  if (value === undefined) return null;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 3650)
    throw new UsageError(`--${flag} must be a whole number of days from 1 to 3650`);
  return new Date(Date.now() + Number(value) * 86_400_000);
}

function slugOf(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63);
}

function slug(value: string): string {
  if (!/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(value))
    throw new UsageError(`--slug must be lower-case letters, digits and dashes (got "${value}")`);
  return value;
}

/** An RFC 3339 instant (the API's `since` / `until`), or absent. */
function instant(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  if (
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/.test(value) ||
    Number.isNaN(Date.parse(value))
  )
    throw new UsageError(`--${flag} must be an RFC 3339 date-time, e.g. 2026-01-31T09:00:00Z`);
  return value;
}

/** Writes each line to stdout, waiting whenever stdout's buffer is full (a slow pipe, a file). */
async function streamLines(lines: AsyncGenerator<string>): Promise<void> {
  for await (const line of lines) {
    if (!process.stdout.write(line)) await once(process.stdout, 'drain');
  }
}

/** A command's answer: printed as JSON, or already streamed to stdout (`audit:export`). */
const STREAMED = Symbol('streamed');

type Values = ReturnType<typeof parse>['values'];

function parse(argv: string[]) {
  return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
}

/**
 * `mail:show`: reads this machine's local mail drop (files; no database, so it works while the
 * embedded server runs). Whoever can read DATA_DIR is the person at this machine.
 */
async function showMail(config: AppConfig, v: Values): Promise<unknown> {
  const to = email(v.email, 'email');
  const drop = new LocalMailDrop(config.dataDir);
  const [newest] = await drop.newestTo(to);
  if (newest === undefined)
    throw new DomainError(
      'NOT_FOUND',
      `No mail to ${to} in ${drop.directory}${config.smtpUrl === undefined ? '' : ' (SMTP_URL is set: mail goes to the mail service)'}`,
    );
  return newest;
}

async function runCommand(
  command: string,
  v: Values,
  config: AppConfig,
  setup: () => Promise<OrganizationSetup>,
) {
  switch (command) {
    case 'mail:show':
      return showMail(config, v);
    case 'audit:export': {
      const input = {
        organizationSlug: required(v.org, 'org'),
        since: instant(v.since, 'since'),
        until: instant(v.until, 'until'),
      };
      await streamLines(await (await setup()).auditExport(input));
      return STREAMED;
    }
    case 'org:create': {
      const name = required(v.name, 'name');
      const ownerEmail = email(v['owner-email'], 'owner-email');
      const derived = v.slug ?? slugOf(name);
      if (derived === '')
        throw new UsageError('--slug is required when --name has no letters or digits');
      const input = {
        name,
        slug: slug(derived),
        ownerEmail,
        ownerName:
          v['owner-name'] === undefined
            ? ownerEmail.split('@')[0]
            : required(v['owner-name'], 'owner-name'),
        tokenName:
          v['token-name'] === undefined
            ? 'Owner (created by admin org:create)'
            : required(v['token-name'], 'token-name'),
        tokenExpiresAt: expiry(v['token-expires-days'], 'token-expires-days'),
      };
      return (await setup()).createOrganization(input);
    }
    case 'user:add': {
      const role = v.role ?? 'member';
      if (!isPresetRole(role))
        throw new UsageError('--role must be owner, admin, member or viewer');
      const userEmail = email(v.email, 'email');
      const input = {
        organizationSlug: required(v.org, 'org'),
        email: userEmail,
        name: v.name === undefined ? userEmail.split('@')[0] : required(v.name, 'name'),
        role,
      };
      return (await setup()).addUser(input);
    }
    case 'token:create': {
      const scopes = (v.scopes ?? SCOPES.join(','))
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
      const known = scopes.filter(isScope);
      if (scopes.length === 0 || known.length < scopes.length)
        throw new UsageError(`--scopes must be a comma-separated list of ${SCOPES.join(', ')}`);
      const input = {
        organizationSlug: required(v.org, 'org'),
        email: email(v.email, 'email'),
        name: required(v.name, 'name'),
        scopes: known,
        expiresAt: expiry(v['expires-days'], 'expires-days'),
      };
      return (await setup()).createToken(input);
    }
    default:
      throw new UsageError(
        command === '' ? 'a command is required' : `unknown command "${command}"`,
      );
  }
}

async function main(argv: string[]): Promise<number> {
  let values: Values;
  let command: string;
  try {
    const parsed = parse(argv);
    values = parsed.values;
    command = parsed.positionals[0] ?? '';
    if (values.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n${USAGE}\n`);
    return 2;
  }
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    throw err;
  }
  let embedded: EmbeddedPostgres | undefined;
  let app: Awaited<ReturnType<typeof NestFactory.createApplicationContext>> | undefined;
  try {
    const result = await runCommand(command, values, config, async () => {
      let url = config.databaseUrl;
      if (url === undefined) {
        embedded = await EmbeddedPostgres.start({ dataDir: join(config.dataDir, 'pgdata') });
        url = embedded.url;
        await migrate(url, 'up', { mcpUrl: config.mcpUrl });
      } else {
        const { pending } = await migrate(url, 'status');
        if (pending.length > 0)
          throw new Error(
            `the database has pending migrations (${pending.join(', ')}); run them first (migrate.js up)`,
          );
      }
      // oxlint-disable-next-line typescript/no-unsafe-class-instance-assignment -- Nest's documented options object
      app = await NestFactory.createApplicationContext(AdminAppModule.forRoot(config, url), {
        logger: ['error'],
      });
      return app.get(OrganizationSetup);
    });
    if (result !== STREAMED) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n${USAGE}\n`);
      return 2;
    }
    if (err instanceof DomainError) {
      const details = err.details === undefined ? '' : ` ${JSON.stringify(err.details)}`;
      process.stderr.write(`${err.code}: ${err.message}${details}\n`);
      return EXIT[err.code] ?? 1;
    }
    process.stderr.write(
      `admin ${command} failed: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    return 1;
  } finally {
    await app?.close();
    await embedded?.stop();
  }
}

process.exitCode = await main(process.argv.slice(2));
