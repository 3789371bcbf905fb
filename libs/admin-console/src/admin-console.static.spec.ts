import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAdminConsole } from './admin-console.static.js';

const INDEX = '<!doctype html><script type="module" src="/admin/assets/index-abc123.js"></script>';

async function consoleApp(dir: string): Promise<FastifyInstance> {
  const fastify = Fastify();
  registerAdminConsole(fastify, { dir });
  fastify.get('/v1/things', () => ({ ok: true }));
  await fastify.ready();
  return fastify;
}

describe('registerAdminConsole', () => {
  let dir: string;
  let app: FastifyInstance;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'console-'));
    await mkdir(join(dir, 'assets'));
    await writeFile(join(dir, 'index.html'), INDEX);
    await writeFile(join(dir, 'assets/index-abc123.js'), 'console.log(1)');
    app = await consoleApp(dir);
  });
  afterAll(async () => {
    await app.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves the app for every console page, never cached, under a strict CSP', async () => {
    for (const url of ['/admin/', '/admin/calls/5b0c', '/admin/audit?q=ana%40example.com']) {
      const res = await app.inject(url);
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toBe(INDEX);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-cache');
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).toContain("connect-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).not.toContain('unsafe-eval');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('same-origin');
    }
  });

  it('redirects /admin to /admin/ (relative links and the router expect the slash)', async () => {
    const res = await app.inject('/admin');
    expect(res.statusCode).toBe(308);
    expect(res.headers.location).toBe('/admin/');
  });

  it('serves hashed assets as immutable for a year', async () => {
    const res = await app.inject('/admin/assets/index-abc123.js');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['content-security-policy']).toBeDefined();
  });

  it('answers 404 for an asset that does not exist, not the app', async () => {
    const res = await app.inject('/admin/assets/missing-000.js');
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toBe(INDEX);
  });

  it('leaves other routes without the console headers', async () => {
    const res = await app.inject('/v1/things');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-security-policy']).toBeUndefined();
  });

  it('says how to build the console when it is not built', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'console-empty-'));
    const bare = await consoleApp(empty);
    try {
      const res = await bare.inject('/admin/');
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({
        error: { code: 'SERVICE_UNAVAILABLE', message: expect.stringContaining('npm run build') },
      });
    } finally {
      await bare.close();
      await rm(empty, { recursive: true, force: true });
    }
  });
});
