import { readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import helmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { toEnvelope } from '@app/errors';

/** Where the console is served: the single-page app at `/admin/`, its hashed files below `assets/`. */
export const ADMIN_CONSOLE_PATH = '/admin';
const ASSETS_PREFIX = `${ADMIN_CONSOLE_PATH}/assets/`;

/**
 * The console's Content-Security-Policy: its own scripts and styles only (no inline script or
 * style element, no eval), API calls to this origin only, never framed.
 */
export const ADMIN_CONSOLE_CSP_DIRECTIVES = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  fontSrc: ["'self'"],
  connectSrc: ["'self'"],
  manifestSrc: ["'self'"],
  baseUri: ["'none'"],
  formAction: ["'self'"],
  frameAncestors: ["'none'"],
  objectSrc: ["'none'"],
} as const;

/**
 * The folder `vite build` writes the console to: `dist/admin-console` next to the compiled server
 * (`dist/libs/admin-console/src/…` → `dist/admin-console`), and the same folder when this file runs
 * from source (tests: `libs/admin-console/src/…` → `<repo>/dist/admin-console`).
 */
export function defaultAdminConsoleDir(): string {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
  return basename(root) === 'dist' ? join(root, 'admin-console') : join(root, 'dist/admin-console');
}

export interface AdminConsoleOptions {
  /** The built console (its `index.html` and `assets/`). */
  dir: string;
}

/**
 * Serves the admin console: `index.html` for every page of the app (`/admin/…`, never cached, so a
 * new build is picked up at once), the content-hashed assets as immutable for a year, and a strict
 * Content-Security-Policy with the other security headers on every console response (the hooks
 * are encapsulated: API routes are untouched). Without a build, the pages answer 503 saying so.
 */
export function registerAdminConsole(fastify: FastifyInstance, options: AdminConsoleOptions): void {
  const indexFile = join(options.dir, 'index.html');
  let index: Buffer | undefined;
  const sendIndex = async (reply: FastifyReply): Promise<FastifyReply> => {
    try {
      index ??= await readFile(indexFile);
    } catch {
      return reply
        .code(503)
        .header('cache-control', 'no-store')
        .send(
          toEnvelope(
            'SERVICE_UNAVAILABLE',
            'The admin console is not built: run `npm run build` and restart the server',
          ),
        );
    }
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .send(index);
  };

  void fastify.register(async (scope) => {
    await scope.register(helmet, {
      contentSecurityPolicy: { useDefaults: false, directives: ADMIN_CONSOLE_CSP_DIRECTIVES },
      crossOriginEmbedderPolicy: true,
      crossOriginOpenerPolicy: { policy: 'same-origin' },
      crossOriginResourcePolicy: { policy: 'same-origin' },
      referrerPolicy: { policy: 'same-origin' },
      frameguard: { action: 'deny' },
    });
    await scope.register(fastifyStatic, {
      root: join(options.dir, 'assets'),
      prefix: ASSETS_PREFIX,
      decorateReply: false,
      index: false,
      list: false,
      dotfiles: 'deny',
      // File names carry a content hash: a changed file is a new URL.
      cacheControl: true,
      maxAge: 365 * 24 * 60 * 60 * 1000,
      immutable: true,
      preCompressed: false,
    });
    scope.get(ADMIN_CONSOLE_PATH, (_request, reply) =>
      reply.redirect(`${ADMIN_CONSOLE_PATH}/`, 308),
    );
    scope.get(`${ADMIN_CONSOLE_PATH}/`, (_request, reply) => sendIndex(reply));
    // Client-side routes (`/admin/calls/…`, `/admin/audit`, …) all load the app.
    scope.get(`${ADMIN_CONSOLE_PATH}/*`, (_request, reply) => sendIndex(reply));
  });
}
