/**
 * docker-compose and the Dockerfile hang together with the server: the variables it reads, its
 * commands, ports, health checks, mounts and hardening. No Docker is needed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  ROOT,
  read,
  SERVER_ENV_KEYS,
  validateNestCli,
  loadJson,
} from './support/deploy-schemas.js';
import {
  envOf,
  dependsOn,
  healthcheckText,
  durationMs,
  composeDefault,
  hostPortOf,
  mountsOf,
  missingFrom,
  compose,
  services,
  serverEnv,
  SERVER_PORT,
  MIGRATE_COMMAND,
  SERVE_COMMAND,
  packageScripts,
  splitNodeCommand,
} from './support/deploy-checks.js';

describe('docker-compose', () => {
  it('has postgres, redis, migrate, server, prometheus and grafana (and admin, the collector and Jaeger on demand)', () => {
    expect(Object.keys(services).sort()).toEqual([
      'admin',
      'grafana',
      'jaeger',
      'migrate',
      'otel-collector',
      'postgres',
      'prometheus',
      'redis',
      'server',
    ]);
    expect(services['otel-collector']?.profiles).toEqual(['tracing']);
    expect(services.jaeger?.profiles).toEqual(['tracing']);
  });

  it('runs postgres 16 with a pg_isready healthcheck and a named volume', () => {
    const pg = services.postgres;
    expect(pg?.image).toMatch(/^postgres:16(\b|$)/);
    expect(healthcheckText(pg?.healthcheck)).toContain('pg_isready');
    const named = mountsOf(pg)
      .map(([source]) => source)
      .filter((s) => !s.startsWith('.') && !s.startsWith('/'));
    expect(named).toHaveLength(1);
    expect(Object.keys(compose.volumes ?? {})).toContain(named[0]);
  });

  it('migrates once, after postgres is healthy, then starts the server (with Redis for the rate limits)', () => {
    const { migrate, server } = services;
    expect(migrate?.command).toEqual(MIGRATE_COMMAND);
    expect(dependsOn(migrate ?? {})).toEqual({ postgres: 'service_healthy' });
    expect(dependsOn(server ?? {})).toEqual({
      postgres: 'service_healthy',
      redis: 'service_healthy',
      migrate: 'service_completed_successfully',
    });
    expect(migrate?.image).toBe(server?.image);
    expect(migrate?.build).toEqual(server?.build);
  });

  it('every depends_on names a service, with a valid condition it can satisfy', () => {
    const conditions = new Set([
      'service_started',
      'service_healthy',
      'service_completed_successfully',
    ]);
    const problems = Object.entries(services).flatMap(([name, service]) =>
      Object.entries(dependsOn(service)).flatMap(([dep, condition]) => {
        if (services[dep] === undefined) return [`${name} → ${dep}: no such service`];
        if (!conditions.has(condition ?? ''))
          return [`${name} → ${dep}: bad condition ${condition}`];
        if (condition === 'service_healthy' && healthcheckText(services[dep].healthcheck) === '') {
          return [`${name} → ${dep}: ${dep} has no healthcheck`];
        }
        return [];
      }),
    );
    expect(problems).toEqual([]);
  });

  it('every long-running service has a healthcheck; the server checks /health/ready with node', () => {
    const longRunning = ['postgres', 'server', 'prometheus', 'grafana'];
    expect(longRunning.filter((n) => healthcheckText(services[n]?.healthcheck) === '')).toEqual([]);
    const check = healthcheckText(services.server?.healthcheck);
    expect(check).toContain(`http://127.0.0.1:${SERVER_PORT}/health/ready`);
    expect(check).toMatch(/\bnode\b[^]*fetch\(/);
    expect(check).not.toMatch(/\b(curl|wget)\b/);
  });

  it('the server and migrate env hold only keys the server reads, and the required ones', () => {
    expect(missingFrom(SERVER_ENV_KEYS, Object.keys(serverEnv))).toEqual([]);
    expect(missingFrom(SERVER_ENV_KEYS, Object.keys(envOf(services.migrate)))).toEqual([]);
    expect(Object.keys(serverEnv)).toEqual(
      expect.arrayContaining([
        'DATABASE_URL',
        'HOST',
        'PORT',
        'PUBLIC_BASE_URL',
        'SERVER_SECRET_KEYS',
      ]),
    );
    expect(serverEnv.HOST).toBe('0.0.0.0');
    expect(SERVER_PORT).toBe(3000);
  });

  it('the database URL points at the postgres service and its credentials', () => {
    const url = new URL(serverEnv.DATABASE_URL ?? '');
    const pg = envOf(services.postgres);
    expect({
      protocol: url.protocol,
      host: url.hostname,
      port: url.port || '5432',
      user: url.username,
      password: url.password,
      db: url.pathname,
    }).toEqual({
      protocol: 'postgres:',
      host: 'postgres',
      port: '5432',
      user: pg.POSTGRES_USER,
      password: pg.POSTGRES_PASSWORD,
      db: `/${pg.POSTGRES_DB}`,
    });
  });

  it('SERVER_SECRET_KEYS comes from the environment, with a clearly marked, valid dev default', () => {
    const { variable, fallback } = composeDefault(serverEnv.SERVER_SECRET_KEYS);
    expect(variable).toBe('SERVER_SECRET_KEYS');
    expect(fallback).toMatch(/dev/i);
    expect(fallback).toMatch(/insecure/i);
    expect(fallback.length).toBeGreaterThanOrEqual(32);
    expect(read('docker-compose.yml')).toMatch(/#.*DEV ONLY/);
  });

  it('publishes the server port, and lets it drain on stop', () => {
    expect((services.server?.ports ?? []).map(hostPortOf)).toContainEqual({
      published: SERVER_PORT,
      target: SERVER_PORT,
    });
    expect(durationMs(services.server?.stop_grace_period ?? '10s')).toBeGreaterThan(
      Number(serverEnv.SHUTDOWN_GRACE_MS ?? '10000'),
    );
  });

  it('bind mounts point at files and folders of this repository', () => {
    const sources = Object.values(services)
      .flatMap((s) => mountsOf(s).map(([source]) => source))
      .filter((s) => s.startsWith('./'));
    expect(sources.length).toBeGreaterThan(0);
    expect(sources.filter((s) => !existsSync(join(ROOT, s)))).toEqual([]);
  });
});

describe('Dockerfile', () => {
  const lines = read('Dockerfile')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const stages: { name: string; from: string; lines: string[] }[] = [];
  for (const line of lines) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from === null) stages.at(-1)?.lines.push(line);
    else stages.push({ from: from[1], name: from[2] ?? '', lines: [] });
  }
  const runtime = stages.at(-1)?.lines ?? [];
  const args = new Map(
    lines.flatMap((l): [string, string][] => {
      const m = /^ARG\s+(\w+)=(\S+)/.exec(l);
      return m === null ? [] : [[m[1], m[2]]];
    }),
  );
  const image = (from: string): string =>
    from.replace(/^\$\{(\w+)\}$/, (_, a: string) => args.get(a) ?? a);

  it('is multi-stage: npm ci, npm run build, then a runtime with production dependencies only', () => {
    expect(stages.length).toBeGreaterThanOrEqual(3);
    const all = stages.flatMap((s) => s.lines).join('\n');
    expect(all).toMatch(/RUN .*npm ci\b/);
    expect(all).toMatch(/RUN .*npm run build\b/);
    expect(all).toMatch(/npm ci [^\n]*--omit=dev/);
    expect(runtime.join('\n')).not.toMatch(/npm (ci|install)(?![^\n]*--omit=dev)/);
    expect(runtime.join('\n')).toMatch(/COPY --from=\S+ \S*dist/);
  });

  it('runs Node 22+ as a non-root user in production mode on the server port', () => {
    const stageNames = new Set(stages.map((s) => s.name));
    const bases = stages.filter((s) => !stageNames.has(s.from)).map((s) => image(s.from));
    expect(bases.length).toBeGreaterThan(0);
    expect(
      bases.filter((b) => Number(/^node:(\d+)/.exec(b)?.[1]) < 22 || !b.startsWith('node:')),
    ).toEqual([]);
    const user =
      runtime
        .filter((l) => /^USER\s/.test(l))
        .at(-1)
        ?.split(/\s+/)[1] ?? 'root';
    expect(user).not.toMatch(/^(root|0)(:|$)/);
    expect(runtime.join('\n')).toMatch(/ENV .*NODE_ENV=production/);
    expect(runtime).toContain(`EXPOSE ${SERVER_PORT}`);
  });

  it('starts the built server; server and migration entry files exist where nest build puts them', () => {
    const cmd = lines.filter((l) => l.startsWith('CMD')).at(-1) ?? 'CMD []';
    expect(parse(cmd.slice(3).trim())).toEqual(SERVE_COMMAND);
    const nest = loadJson(validateNestCli, 'nest-cli.json');
    expect(`dist/${nest.projects.server.entryFile}.js`).toBe(SERVE_COMMAND[1]);
    const sources = [SERVE_COMMAND[1], MIGRATE_COMMAND[1]].map((js) =>
      js.replace(/^dist\//, '').replace(/\.js$/, '.ts'),
    );
    expect(sources.filter((f) => !existsSync(join(ROOT, f)))).toEqual([]);
  });

  it('runs with the memory settings of `npm run start:prod` and `npm start` (docs/operations.md "Memory")', () => {
    const prod = splitNodeCommand(packageScripts.scripts['start:prod'] ?? '');
    expect(prod.args).toEqual(SERVE_COMMAND);
    expect(prod.env).toContain('MALLOC_ARENA_MAX=2');
    expect(prod.flags.some((f) => /^--max-old-space-size=\d+$/.test(f))).toBe(true);
    expect(packageScripts.scripts.start).toBe(
      `npm run build && ${packageScripts.scripts['start:prod']}`,
    );
    const env = runtime
      .filter((l) => l.startsWith('ENV '))
      .flatMap((l) => l.slice(4).trim().split(/\s+/));
    expect(env).toEqual(
      expect.arrayContaining([...prod.env, `NODE_OPTIONS=${prod.flags.join(' ')}`]),
    );
  });

  it('leaves the testing-only conformance fixtures (their entry and library) out of the image', () => {
    const build = stages.find((st) => st.lines.some((l) => /RUN .*npm run build\b/.test(l)));
    const removed = (build?.lines ?? [])
      .flatMap((l) => [...l.matchAll(/\brm -r\s+((?:[^&;]\S*\s*)+)/g)])
      .flatMap((m) => m[1].trim().split(/\s+/));
    const fixtures = [
      'dist/apps/server/src/conformance-fixtures.js*',
      'dist/libs/mcp-conformance-fixtures',
    ];
    expect(removed).toEqual(expect.arrayContaining(fixtures));
    // What is removed is what the build makes of sources that exist.
    expect(existsSync(join(ROOT, 'apps/server/src/conformance-fixtures.ts'))).toBe(true);
    expect(existsSync(join(ROOT, 'libs/mcp-conformance-fixtures/src/index.ts'))).toBe(true);
    expect(runtime.join('\n')).toMatch(new RegExp(`COPY --from=${build?.name ?? '-'} \\S*dist`));
  });

  it('.dockerignore keeps node_modules, dist and secrets out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim());
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.git', '.env']));
    expect(
      ['apps', 'libs', 'package.json', 'package-lock.json'].filter((n) => ignored.includes(n)),
    ).toEqual([]);
  });
});

describe('image and compose hardening', () => {
  it('the Dockerfile runs as non-root, has a HEALTHCHECK on readiness, and its Node major satisfies engines', () => {
    const dockerfile = read('Dockerfile');
    expect(dockerfile).toMatch(/^USER 1000:1000$/m);
    expect(dockerfile).toMatch(/^HEALTHCHECK [^\n]*\\\n\s+CMD [^\n]*\/health\/ready/m);
    const image = /^ARG NODE_IMAGE=node:(\d+)[-.]/m.exec(dockerfile)?.[1];
    const pkg: { engines: { node: string } } = JSON.parse(read('package.json'));
    const required = /^>=(\d+)/.exec(pkg.engines.node)?.[1];
    expect(image).toBeDefined();
    expect(required).toBeDefined();
    expect(Number(image)).toBeGreaterThanOrEqual(Number(required));
    // What the dependencies declare: engines may not promise less than they need.
    for (const dep of ['nestjs-pino', 'nestjs-cls']) {
      const theirs: { engines?: { node?: string } } = JSON.parse(
        readFileSync(join(ROOT, 'node_modules', dep, 'package.json'), 'utf8'),
      );
      const major = /(\d+)/.exec(theirs.engines?.node ?? '0')?.[1];
      expect(Number(required), `${dep} needs node ${theirs.engines?.node}`).toBeGreaterThanOrEqual(
        Number(major),
      );
    }
  });

  it('compose runs the server and the migration read-only, without capabilities; Redis is there', () => {
    const composeFile: {
      services: Record<string, { read_only?: boolean; cap_drop?: string[]; image?: string }>;
    } = parse(read('docker-compose.yml'));
    for (const name of ['server', 'migrate', 'redis']) {
      expect(composeFile.services[name]?.read_only, name).toBe(true);
      expect(composeFile.services[name]?.cap_drop, name).toEqual(['ALL']);
    }
    expect(composeFile.services.redis?.image).toMatch(/^redis:/);
  });
});
