import { createHash } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { startBuiltServer, type BuiltServer } from '../support/built-server.js';
import { BrowserAgent } from '../support/browser-agent.js';
import { skipWhen } from '../support/skip.js';
import {
  opensslPath,
  startLoopbackHttps,
  throwawayCertificate,
  type LoopbackHttpsServer,
  type ThrowawayCertificate,
} from '../support/loopback-https.js';
import type { Json } from '../support/mcp-peers.js';
import {
  authorizeInBrowser,
  InMemoryOAuthClient,
  pkceAuthorizeUrl,
} from '../support/oauth-client.js';
import { latestMailTo } from '../support/mail-drop.js';

/**
 * Client ID Metadata Documents (MCP 2025-11-25): the client's id is the HTTPS URL of a JSON
 * document it serves. The test serves the documents itself over HTTPS on loopback, with a
 * throwaway CA (openssl) that only the BUILT server child processes trust (NODE_EXTRA_CA_CERTS):
 *
 * - `flagged`: OAUTH_CIMD_ALLOW_PRIVATE_HOSTS=true (development), so loopback documents are
 *   fetched: the v2 SDK client authorizes with its CIMD URL; each refusal (client_id differs from
 *   the URL, oversized, slow, redirect, http://) is probed against it;
 * - `guarded`: the production default, same CA, same documents: a loopback document is never
 *   fetched — the document server sees no connection at all (literal address, localhost name), or
 *   no request (a DNS name resolving to loopback, refused by the library at connect time).
 */

const OPENSSL = opensslPath();
const OWNER = 'olivia.owner@acme.test';
const REDIRECT = 'http://127.0.0.1:53690/callback';
const VERIFIER = 'cimd-verifier-'.repeat(4);
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');
/** The server's limit is 5 KiB; this is comfortably over it. */
const OVERSIZED_PADDING = 'x'.repeat(8 * 1024);
/** The library's fetch timeout is 2.5 s; the slow document answers after this. */
const SLOW_MS = 15_000;
/** One byte of the trickled document per this many ms: its ~300 bytes take over a minute. */
const TRICKLE_MS = 250;
/**
 * The library's document cache (per replica) is a two-generation LRU of 100: an entry survives at
 * least 99 newer ones and never 200, so it holds at most 199 documents.
 */
const CIMD_CACHE_BOUND = 200;

const OPENSSL_MISSING =
  OPENSSL === undefined && 'openssl is not installed (it makes the loopback CA)';

/** The host name of this machine when it resolves to loopback (Debian: 127.0.1.1), else undefined. */
async function loopbackHostName(): Promise<string | undefined> {
  const name = hostname();
  if (name === 'localhost' || name.endsWith('.localhost')) return undefined;
  const found = await lookup(name).catch(() => undefined);
  return found !== undefined && found.address.startsWith('127.') ? name : undefined;
}

/** Polls `done` until true (the server side of a closed connection is seen a moment later). */
async function waitFor(done: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
}

/** A client's metadata document, its client_id being `id`. */
function documentFor(id: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    client_id: id,
    client_name: 'CIMD test client',
    client_uri: id.replace(/\/[^/]*\/[^/]*$/, '/'),
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...extra,
  });
}

/** /oauth/authorize with this client_id (no sign-in involved: the client is resolved first). */
async function authorizeWith(server: BuiltServer, clientId: string) {
  const url = pkceAuthorizeUrl(server.url, {
    clientId,
    redirectUri: REDIRECT,
    state: 'st4te',
    challenge: CHALLENGE,
    resource: `${server.url}/mcp`,
  });
  const started = Date.now();
  const response = await fetch(url, { redirect: 'manual' });
  return {
    status: response.status,
    location: response.headers.get('location'),
    html: await response.text(),
    ms: Date.now() - started,
  };
}

/** A refusal: an error page, never a redirect to the (unverified) redirect URI. */
function expectRefused(outcome: { status: number; location: string | null; html: string }) {
  expect(outcome.location, outcome.html).toBeNull();
  expect(outcome.status).toBe(400);
  expect(outcome.html).toContain('Authorization failed');
}

describe('Client ID Metadata Documents', skipWhen(OPENSSL_MISSING), () => {
  let certificate: ThrowawayCertificate;
  let documents: LoopbackHttpsServer;
  let plain: Server;
  let plainHits = 0;
  let plainOrigin = '';
  let flagged: BuiltServer;
  let guarded: BuiltServer;
  let machineName: string | undefined;
  const pending = new Set<NodeJS.Timeout>();
  /** Slow-document requests the server has not answered yet. */
  let slowUnanswered = 0;
  /** Trickled documents: finished by the server, or cut off by the client before the end. */
  const trickles = { finished: 0, cut: 0 };

  beforeAll(async () => {
    machineName = await loopbackHostName();
    certificate = await throwawayCertificate(OPENSSL!, machineName);
    documents = await startLoopbackHttps(certificate, (req, res, origin) => {
      const url = new URL(req.url ?? '/', origin);
      const self = `${url.protocol}//${req.headers.host}${url.pathname}`;
      const json = (body: string, headers: Record<string, string> = {}): void => {
        res.writeHead(200, { 'content-type': 'application/json', ...headers });
        res.end(body);
      };
      switch (url.pathname) {
        case '/good/client.json':
        case '/again/client.json':
          return json(documentFor(self), { 'cache-control': 'public, max-age=3600' });
        case '/mismatch/client.json':
          return json(documentFor(`${origin}/someone-else/client.json`));
        case '/big/client.json':
          return json(documentFor(self, { padding: OVERSIZED_PADDING }));
        case '/big-chunked/client.json': {
          // No content-length: the limit must hold while reading, not only from the header.
          res.writeHead(200, { 'content-type': 'application/json' });
          const body = documentFor(self, { padding: OVERSIZED_PADDING });
          for (let i = 0; i < body.length; i += 1024) res.write(body.slice(i, i + 1024));
          return void res.end();
        }
        case '/slow/client.json': {
          slowUnanswered += 1;
          const timer = setTimeout(() => {
            pending.delete(timer);
            slowUnanswered -= 1;
            json(documentFor(self));
          }, SLOW_MS);
          return void pending.add(timer);
        }
        case '/trickle/client.json': {
          // Headers at once, then the body a byte at a time: the time limit must cover the body.
          res.writeHead(200, { 'content-type': 'application/json' });
          const body = documentFor(self);
          let sent = 0;
          const timer = setInterval(() => {
            if (sent < body.length) {
              res.write(body[sent++]);
              return;
            }
            clearInterval(timer);
            pending.delete(timer);
            trickles.finished += 1;
            res.end();
          }, TRICKLE_MS);
          pending.add(timer);
          res.on('close', () => {
            if (sent < body.length) trickles.cut += 1;
            clearInterval(timer);
            pending.delete(timer);
          });
          return;
        }
        case '/redirect/client.json':
          res.writeHead(302, { location: '/redirect-target/client.json' });
          return void res.end();
        case '/redirect-target/client.json':
          // Would be valid for the redirecting URL, were the redirect followed.
          return json(documentFor(`${origin}/redirect/client.json`));
        default:
          if (/^\/many\/\d+\/client\.json$/.test(url.pathname))
            return json(documentFor(self), { 'cache-control': 'public, max-age=3600' });
          res.writeHead(404);
          return void res.end();
      }
    });
    plain = createHttpServer((req, res) => {
      plainHits += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(documentFor(`${plainOrigin}${req.url ?? '/'}`));
    });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
    // oxlint-disable-next-line typescript/no-unsafe-type-assertion -- a TCP server's address is AddressInfo
    plainOrigin = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;

    const env = { NODE_EXTRA_CA_CERTS: certificate.caFile, LOG_LEVEL: 'warn' };
    [flagged, guarded] = await Promise.all([
      startBuiltServer({
        env: { ...env, NODE_ENV: 'development', OAUTH_CIMD_ALLOW_PRIVATE_HOSTS: 'true' },
      }),
      startBuiltServer({ env: { ...env, NODE_ENV: 'production' } }),
    ]);
  }, 240_000);

  afterAll(async () => {
    for (const timer of pending) clearTimeout(timer);
    await Promise.allSettled([flagged?.dispose(), guarded?.dispose()]);
    await documents?.close();
    await new Promise<void>((resolve) => (plain ? plain.close(() => resolve()) : resolve()));
    await certificate?.dispose();
  }, 120_000);

  /**
   * A refused document is fetched once by the authorization endpoint and once more by the
   * library's error handler (it looks the client up again to decide where the error goes);
   * failures are not cached.
   */
  function expectFetchedAtMostTwice(path: string): void {
    expect(documents.hits(path), path).toBeGreaterThanOrEqual(1);
    expect(documents.hits(path), path).toBeLessThanOrEqual(2);
  }

  describe('with OAUTH_CIMD_ALLOW_PRIVATE_HOSTS (development)', () => {
    it('the authorization server metadata advertises client_id_metadata_document_supported', async () => {
      const metadata: Json = await (
        await fetch(`${flagged.url}/.well-known/oauth-authorization-server`)
      ).json();
      expect(metadata.client_id_metadata_document_supported).toBe(true);
    });

    it('the v2 SDK client authorizes with its CIMD URL as client_id, then lists and reads', async () => {
      const clientId = `${documents.origin}/good/client.json`;
      const provider = new InMemoryOAuthClient(REDIRECT, clientId);
      const transport = new StreamableHTTPClientTransport(new URL(`${flagged.url}/mcp`), {
        authProvider: provider,
      });
      await expect(
        new Client({ name: 'cimd-e2e', version: '1.0.0' }).connect(transport),
      ).rejects.toBeInstanceOf(UnauthorizedError);
      // No registration: the SDK uses the document URL as the client id.
      expect(provider.authorizationUrl?.searchParams.get('client_id')).toBe(clientId);
      expect(provider.information?.client_id ?? clientId).toBe(clientId);

      let consent = '';
      const callback = await authorizeInBrowser({
        browser: new BrowserAgent(flagged.url),
        authorizationUrl: provider.authorizationUrl!,
        redirectUrl: REDIRECT,
        email: OWNER,
        readMail: (email) => latestMailTo(flagged, email),
        onConsentPage: (html) => (consent = html),
      });
      // The consent page names the document's client and the host the document lives on, and
      // does not call it self-registered.
      expect(consent).toContain('CIMD test client');
      expect(consent).toContain(`127.0.0.1:${documents.port}`);
      expect(consent).not.toContain('registered itself');
      expect(callback.searchParams.get('iss')).toBe(flagged.url);
      await transport.finishAuth(callback.searchParams);
      expect(provider.saved?.access_token).toMatch(/^oat_/);

      const client = new Client({ name: 'cimd-e2e', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${flagged.url}/mcp`), {
          authProvider: provider,
        }),
      );
      try {
        const tools = await client.listTools();
        expect(tools.tools.map((tool) => tool.name)).toContain('list_portal_users');
        const result: Json = await client.callTool({ name: 'list_portal_users', arguments: {} });
        expect(result.isError ?? false).toBe(false);
      } finally {
        await client.close();
      }
    });

    it('the document is cached per its Cache-Control (fetched once for two authorizations)', async () => {
      const clientId = `${documents.origin}/again/client.json`;
      const first = await authorizeWith(flagged, clientId);
      const second = await authorizeWith(flagged, clientId);
      // Both go on to sign-in (a redirect to the login interaction), not to an error page.
      expect(first.status, first.html).toBe(303);
      expect(second.status, second.html).toBe(303);
      expect(documents.hits('/again/client.json')).toBe(1);
    });

    it('the cache is bounded: a document is fetched again once 200 newer ones were cached', async () => {
      const many = (n: number): string => `${documents.origin}/many/${n}/client.json`;
      for (let n = 0; n <= CIMD_CACHE_BOUND; n++) {
        const outcome = await authorizeWith(flagged, many(n));
        expect(outcome.status, outcome.html).toBe(303);
      }
      // The newest is still cached; the first was evicted by the newer ones.
      await authorizeWith(flagged, many(CIMD_CACHE_BOUND));
      expect(documents.hits(`/many/${CIMD_CACHE_BOUND}/client.json`)).toBe(1);
      await authorizeWith(flagged, many(0));
      expect(documents.hits('/many/0/client.json')).toBe(2);
    });

    it('a document whose client_id differs from its URL is refused', async () => {
      const outcome = await authorizeWith(flagged, `${documents.origin}/mismatch/client.json`);
      expectRefused(outcome);
      expect(outcome.html).toContain('client_id');
      expectFetchedAtMostTwice('/mismatch/client.json');
    });

    it('an oversized document is refused, with or without a content-length', async () => {
      for (const path of ['/big/client.json', '/big-chunked/client.json']) {
        const outcome = await authorizeWith(flagged, `${documents.origin}${path}`);
        expectRefused(outcome);
        expect(outcome.html, path).toContain('fetch failed');
        expectFetchedAtMostTwice(path);
      }
    });

    it('a slow document is refused by the fetch time limit: the refusal comes while the document is still unanswered', async () => {
      const outcome = await authorizeWith(flagged, `${documents.origin}/slow/client.json`);
      expectRefused(outcome);
      expect(outcome.html).toContain('fetch failed');
      // Every request for it is still waiting for its answer: the limit cut it, not an answer.
      expect(documents.hits('/slow/client.json')).toBeGreaterThanOrEqual(1);
      expect(slowUnanswered).toBe(documents.hits('/slow/client.json'));
    });

    it('the time limit covers the body too: a document trickled a byte at a time is cut off and refused', async () => {
      const outcome = await authorizeWith(flagged, `${documents.origin}/trickle/client.json`);
      expectRefused(outcome);
      expect(outcome.html).toContain('fetch failed');
      expectFetchedAtMostTwice('/trickle/client.json');
      // The server never finished one; the client hung up on each before the end.
      await waitFor(() => trickles.cut === documents.hits('/trickle/client.json'));
      expect(trickles).toEqual({ finished: 0, cut: documents.hits('/trickle/client.json') });
    });

    it('a redirect is not followed: refused, and its target never fetched', async () => {
      expectRefused(await authorizeWith(flagged, `${documents.origin}/redirect/client.json`));
      expectFetchedAtMostTwice('/redirect/client.json');
      expect(documents.hits('/redirect-target/client.json')).toBe(0);
    });

    it('an http:// client_id is not a metadata document: refused, never fetched', async () => {
      const outcome = await authorizeWith(flagged, `${plainOrigin}/client.json`);
      expectRefused(outcome);
      expect(plainHits).toBe(0);
    });
  });

  describe('without the flag (the production default)', () => {
    it('the same document on a loopback address is never fetched: no connection at all', async () => {
      const handshakes = documents.handshakes();
      const hits = documents.hits('/good/client.json');
      const port = documents.port;
      for (const host of ['127.0.0.1', 'localhost', '[::ffff:127.0.0.1]']) {
        const outcome = await authorizeWith(guarded, `https://${host}:${port}/good/client.json`);
        expectRefused(outcome);
        expect(outcome.html, host).toContain('not allowed');
      }
      expect(documents.handshakes()).toBe(handshakes);
      expect(documents.hits('/good/client.json')).toBe(hits);
    });

    it('a DNS name that resolves to loopback is refused when connecting: no request reaches it', async (context) => {
      if (machineName === undefined) {
        context.skip('this machine’s host name does not resolve to a loopback address');
        return;
      }
      const hits = documents.hits('/good/client.json');
      const outcome = await authorizeWith(
        guarded,
        `https://${machineName}:${documents.port}/good/client.json`,
      );
      expectRefused(outcome);
      expect(outcome.html).toContain('fetch failed');
      expect(documents.hits('/good/client.json')).toBe(hits);
      // The control: the flagged server, same name, same CA, fetches it.
      const allowed = await authorizeWith(
        flagged,
        `https://${machineName}:${documents.port}/good/client.json`,
      );
      expect(allowed.status, allowed.html).toBe(303);
    });
  });
});
