import { randomBytes } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { EmbeddedPostgres, migrate } from '@app/database';

export interface TestDatabase {
  url: string;
  /** Drops the database (real Postgres) or stops the embedded one. */
  dispose(): Promise<void>;
}

/**
 * Where {@link prepareTestDatabaseTemplate} left the migrated template, for the test processes it
 * starts (they inherit the environment): the template database's name on the Postgres named by
 * `DATABASE_URL`, or the path of the embedded engine's data directory archive.
 */
export const TEST_DATABASE_TEMPLATE = 'TEST_DATABASE_TEMPLATE';

/**
 * On the embedded engine, where {@link prepareTestDatabaseTemplate} also left the migrated
 * template as a data directory on disk (cleanly closed, not seeded): a test that starts the BUILT
 * server copies it to `DATA_DIR/pgdata` (test/support/server-process.mjs, `seedEmbeddedDataDir`),
 * so the child skips initdb and every migration (about 10 s of CPU and 12 s of wall per start).
 */
export const TEST_EMBEDDED_DATA_DIR = 'TEST_EMBEDDED_DATA_DIR';

function adminUrl(): string | undefined {
  const url = process.env.DATABASE_URL;
  return url === undefined || url === '' ? undefined : url;
}

function databaseName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
}

async function onAdmin<T>(url: string, work: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end().catch(() => undefined);
  }
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function dropOnPostgres(admin: string, name: string): Promise<void> {
  await onAdmin(admin, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/** A new database on the real Postgres, empty or a copy of `template`. */
async function createOnPostgres(admin: string, template?: string): Promise<TestDatabase> {
  const name = databaseName('t');
  await onAdmin(admin, (c) =>
    c.query(`CREATE DATABASE ${name}${template === undefined ? '' : ` TEMPLATE ${template}`}`),
  );
  return {
    url: withDatabase(admin, name),
    dispose: () => dropOnPostgres(admin, name),
  };
}

/** The embedded template's archive, read once per process. */
let embeddedTemplate: { path: string; blob: Promise<Blob> } | undefined;

function embeddedTemplateBlob(path: string): Promise<Blob> {
  if (embeddedTemplate?.path !== path)
    embeddedTemplate = { path, blob: readFile(path).then((b) => new Blob([b])) };
  return embeddedTemplate.blob;
}

/**
 * A database of this test's own, with every migration applied: a fresh database on the Postgres
 * named by `DATABASE_URL` when it is set, else an in-memory embedded Postgres. Under the test
 * runner it is a copy of the template migrated once per run ({@link prepareTestDatabaseTemplate});
 * the migrations still run on the copy, so a template older than the code is brought up to date
 * rather than trusted.
 */
export async function createTestDatabase(
  options: { migrate?: boolean } = {},
): Promise<TestDatabase> {
  const admin = adminUrl();
  const template = options.migrate === false ? undefined : process.env[TEST_DATABASE_TEMPLATE];
  let db: TestDatabase;
  if (admin === undefined) {
    const from = template === undefined ? undefined : await embeddedTemplateBlob(template);
    const emb = await EmbeddedPostgres.start({ from });
    db = { url: emb.url, dispose: () => emb.stop() };
  } else {
    db = await createOnPostgres(admin, template);
  }
  if (options.migrate !== false) await migrate(db.url, 'up');
  return db;
}

/**
 * Migrates one database for the whole test run and says where it is in
 * `process.env.TEST_DATABASE_TEMPLATE` (the vitest global setup; test processes inherit it):
 * every {@link createTestDatabase} then copies it (`CREATE DATABASE … TEMPLATE` on real Postgres,
 * the data directory's archive on the embedded engine) instead of running initdb and every
 * migration again. Returns the teardown, or nothing when a template is already set (another
 * project's setup in the same run made it).
 */
export async function prepareTestDatabaseTemplate(): Promise<(() => Promise<void>) | undefined> {
  if (process.env[TEST_DATABASE_TEMPLATE] !== undefined) return undefined;
  const admin = adminUrl();
  if (admin !== undefined) {
    // `t_` like every test database, so CI's clean-up of leftovers finds it too.
    const name = databaseName('t_template');
    await onAdmin(admin, (c) => c.query(`CREATE DATABASE ${name}`));
    await migrate(withDatabase(admin, name), 'up');
    process.env[TEST_DATABASE_TEMPLATE] = name;
    return async () => {
      delete process.env[TEST_DATABASE_TEMPLATE];
      await dropOnPostgres(admin, name);
    };
  }
  // On disk, so that the built server's tests can copy the directory itself (see
  // TEST_EMBEDDED_DATA_DIR); the in-memory copies load the same directory's archive.
  const dir = join(tmpdir(), databaseName('platform-test-template'));
  const dataDir = join(dir, 'pgdata');
  const emb = await EmbeddedPostgres.start({ dataDir });
  let archive: Blob;
  try {
    await migrate(emb.url, 'up');
    archive = await emb.snapshot();
  } finally {
    await emb.stop();
  }
  const path = join(dir, 'pgdata.tar');
  await writeFile(path, Buffer.from(await archive.arrayBuffer()));
  process.env[TEST_DATABASE_TEMPLATE] = path;
  process.env[TEST_EMBEDDED_DATA_DIR] = dataDir;
  return async () => {
    delete process.env[TEST_DATABASE_TEMPLATE];
    delete process.env[TEST_EMBEDDED_DATA_DIR];
    await rm(dir, { recursive: true, force: true });
  };
}
