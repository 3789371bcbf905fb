import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppConfig } from '@app/config';
import { EmbeddedPostgres, migrate } from '@app/database';
import { DemoSeeder, type DemoTokens, type DemoTokenSecrets } from '@app/demo';
import { SchemaStatus, ShutdownState } from '@app/health';
import { AppModule } from './app.module.js';
import { configureApp, createFastifyAdapter } from './app.setup.js';

export interface RunningServer {
  app: NestFastifyApplication;
  config: AppConfig;
  /** Where the server listens, e.g. `http://127.0.0.1:3000`. */
  url: string;
  /** Demo token secrets when this start seeded the demo organisation. */
  demoTokens?: DemoTokenSecrets;
  demoTokensFile?: string;
  close(): Promise<void>;
}

export interface StartOptions {
  /** `if-empty`: seed the demo organisation unless it exists (embedded default); `always`: tests. */
  seedDemo?: 'if-empty' | 'always' | 'never';
  /** Write `demo-tokens.json` under the data directory when seeding. */
  writeDemoTokens?: boolean;
}

/**
 * Generates (once) and then reuses the embedded default's server secret under `dataDir`. A data
 * directory from before the rename keeps its key (`confirmation-key` is renamed), so signed-in
 * people and live sessions survive the upgrade.
 */
export async function embeddedServerSecret(dataDir: string): Promise<string> {
  const file = join(dataDir, 'server-secret-key');
  await rename(join(dataDir, 'confirmation-key'), file).catch(() => undefined);
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    const key = randomBytes(48).toString('base64url');
    await writeFile(file, `${key}\n`, { mode: 0o600 });
    return key;
  }
}

/**
 * Writes `file` so that a reader sees either nothing or all of it: a temporary file in the same
 * directory, then an atomic rename over the target.
 */
async function writeFileAtomically(file: string, content: string): Promise<void> {
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, content, { mode: 0o600 });
    await rename(temporary, file);
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
}

/**
 * The conformance fixtures when their flag is set, loaded from an entry nothing else imports (the
 * image leaves it out; the configuration refuses the flag in production).
 */
async function testingModules(config: AppConfig): Promise<Type[]> {
  if (!config.mcpConformanceFixtures) return [];
  try {
    return [(await import('./conformance-fixtures.js')).McpConformanceFixturesModule];
  } catch (err) {
    throw new Error(
      'MCP_CONFORMANCE_FIXTURES=true, but this build has no conformance fixtures (the image leaves them out)',
      { cause: err },
    );
  }
}

/**
 * Starts the whole server: the database (external, or the embedded one, migrated), the Nest app
 * on Fastify, and (optionally) the demo organisation. `main.ts` and the tests share it.
 */
export async function startServer(
  config: AppConfig,
  options: StartOptions = {},
): Promise<RunningServer> {
  let embedded: EmbeddedPostgres | undefined;
  let databaseUrl = config.databaseUrl;
  if (databaseUrl === undefined) {
    const dataDir = resolve(config.dataDir);
    await mkdir(dataDir, { recursive: true });
    embedded = await EmbeddedPostgres.start({ dataDir: join(dataDir, 'pgdata') });
    databaseUrl = embedded.url;
    // One backend session behind the socket: a single pool connection keeps statements from
    // different connections from interleaving (docs/adr/0003).
    config.dbPoolSize = 1;
    await migrate(databaseUrl, 'up', { mcpUrl: config.mcpUrl });
    if (config.serverSecretKeys.length === 0)
      config.serverSecretKeys = [await embeddedServerSecret(dataDir)];
  }

  let app: NestFastifyApplication | undefined;
  try {
    app = await NestFactory.create<NestFastifyApplication>(
      AppModule.forRoot(config, databaseUrl, await testingModules(config)),
      createFastifyAdapter(config),
      { bufferLogs: true, bodyParser: false },
    );
    configureApp(app, config);
    await app.listen({ port: config.port, host: config.host });

    const address = app.getHttpServer().address();
    const port = typeof address === 'object' && address !== null ? address.port : config.port;
    // PORT=0 (tests): the bound port is the one clients see, in 401 challenges and OAuth metadata too.
    config.port = port;
    const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;

    const running: RunningServer = {
      app,
      config,
      url,
      close: async () => {
        await app?.close();
        await embedded?.stop();
      },
    };

    // A schema behind this build's migrations is said once, at start (readiness stays 503 until
    // the migrations run; the server never runs them on an external database). An unreachable
    // database is readiness's to report.
    await app
      .get(SchemaStatus)
      .check()
      .catch(() => undefined);

    const seeder = app.get(DemoSeeder);
    const mode =
      options.seedDemo ?? ((config.seedDemo ?? embedded !== undefined) ? 'if-empty' : 'never');
    if (mode === 'always' || (mode === 'if-empty' && !(await seeder.isSeeded()))) {
      running.demoTokens = await seeder.seed();
      if (options.writeDemoTokens ?? true) {
        await mkdir(resolve(config.dataDir), { recursive: true });
        const base = config.baseUrl;
        const file: DemoTokens = {
          mcpUrl: `${base}/mcp`,
          apiUrl: `${base}/v1`,
          tokens: running.demoTokens,
        };
        running.demoTokensFile = resolve(config.dataDir, 'demo-tokens.json');
        await writeFileAtomically(running.demoTokensFile, `${JSON.stringify(file, null, 2)}\n`);
      }
    } else if (embedded !== undefined) {
      running.demoTokensFile = resolve(config.dataDir, 'demo-tokens.json');
    }
    // Only now may readiness say 200: a client that waits for it finds the tokens file complete.
    app.get(ShutdownState).markStarted();
    return running;
  } catch (err) {
    await app?.close().catch(() => undefined);
    await embedded?.stop().catch(() => undefined);
    throw err;
  }
}
