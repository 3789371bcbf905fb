import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort } from './server-process.mjs';
import { Redis } from 'ioredis';

/** Whether `redis-server` can be run here; tests that need one skip with this reason otherwise. */
export const REDIS_SERVER_MISSING: string | false =
  spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0
    ? false
    : 'redis-server is not installed (apt-get install redis-server); Redis tests skipped';

/**
 * A `redis-server` of the test's own on a free loopback port (never the machine's shared one),
 * without persistence. `stop()` kills it (the port stays reserved for `start()` again).
 */
export class TestRedis {
  private child: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<TestRedis> {
    const redis = new TestRedis(await freePort());
    await redis.start();
    return redis;
  }

  async start(): Promise<void> {
    if (this.child !== undefined) return;
    const child = spawn(
      'redis-server',
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    this.child = child;
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode})`);
      if (await answersPing(this.url)) return;
      if (Date.now() > deadline) {
        await this.stop();
        throw new Error(`redis-server did not answer on port ${this.port} within 10 s`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child === undefined || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
}

async function answersPing(url: string): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}
