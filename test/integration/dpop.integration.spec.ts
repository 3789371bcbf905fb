import { createHash, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  displayPrefix,
  DPOP_PROOF_WINDOW_SECONDS,
  hashTokenSecret,
  newTokenSecret,
  TokensRepository,
  TokensService,
} from '@app/identity';
import type { Json } from './platform-api.fixtures.js';
import { startTestReplica, startTestServer, type TestServer } from '../support/test-server.js';

/**
 * RFC 9449 on the resource side: a token bound to a key works only as `Authorization: DPoP` with
 * a proof that this very request is signed by that key, once, across replicas. Every proof here
 * is a real one, made with `jose` and a key of the test's own.
 */

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

interface ProofClaims {
  htm?: string;
  htu?: string;
  iat?: number;
  ath?: string;
  jti?: string;
  nonce?: string;
}

let a: TestServer;
let b: TestServer;
let key: KeyPair;
let publicJwk: JWK;
let bound: string;

const MCP_BODY = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

async function proof(
  claims: ProofClaims = {},
  opts: { signer?: KeyPair; typ?: string; url?: string } = {},
): Promise<string> {
  const signer = opts.signer ?? key;
  const jwk = await exportJWK(signer.publicKey);
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    htm: 'POST',
    htu: opts.url ?? `${a.url}/mcp`,
    iat: now,
    jti: randomUUID(),
    ath: createHash('sha256').update(bound).digest('base64url'),
    ...claims,
  })
    .setProtectedHeader({ alg: 'ES256', typ: opts.typ ?? 'dpop+jwt', jwk })
    .sign(signer.privateKey);
}

/** tools/list on `/mcp` of `server` with these credentials. */
async function mcp(
  server: TestServer,
  authorization: string,
  dpop?: string | string[],
): Promise<{ status: number; challenge: string; code?: string }> {
  const headers = new Headers({
    authorization,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-06-18',
  });
  for (const value of typeof dpop === 'string' ? [dpop] : (dpop ?? []))
    headers.append('dpop', value);
  const response = await fetch(`${server.url}/mcp`, { method: 'POST', headers, body: MCP_BODY });
  const body: Json = await response.json();
  return {
    status: response.status,
    challenge: response.headers.get('www-authenticate') ?? '',
    code: body?.error?.code,
  };
}

beforeAll(async () => {
  a = await startTestServer();
  b = await startTestReplica(a);
  key = await generateKeyPair('ES256');
  publicJwk = await exportJWK(key.publicKey);
  // A token as the authorization server stores one issued with a DPoP proof (cnf.jkt).
  const owner = await a.server.app.get(TokensService).authenticate(a.tokens.owner);
  bound = newTokenSecret('oauth');
  const stored = await a.server.app.get(TokensRepository).upsertOAuthAccessToken({
    membershipId: owner.membership?.id ?? 'none',
    grantId: `grant-${randomUUID()}`,
    clientId: 'dpop-test-client',
    clientName: 'DPoP test client',
    audience: `${a.url}/mcp`,
    dpopJkt: await calculateJwkThumbprint(publicJwk, 'sha256'),
    scopes: ['accounts:read'],
    secretHash: hashTokenSecret(bound),
    tokenPrefix: displayPrefix(bound),
    expiresInSeconds: 3600,
  });
  if (!stored) throw new Error('the bound token was not stored');
}, 120_000);

afterAll(async () => {
  await b?.close();
  await a?.close();
}, 120_000);

describe('a DPoP-bound token', () => {
  it('works with a valid proof, on either replica (each proof once)', async () => {
    expect((await mcp(a, `DPoP ${bound}`, await proof())).status).toBe(200);
    expect((await mcp(b, `DPoP ${bound}`, await proof())).status).toBe(200);
    // The scheme name is case-insensitive (RFC 9110 §11.1).
    expect((await mcp(a, `dpop ${bound}`, await proof())).status).toBe(200);
  });

  it('as a Bearer token is refused (INVALID_TOKEN, DPoP challenge), with or without a proof', async () => {
    for (const dpop of [undefined, await proof()]) {
      const r = await mcp(a, `Bearer ${bound}`, dpop);
      expect(r).toMatchObject({ status: 401, code: 'INVALID_TOKEN' });
      expect(r.challenge).toMatch(/^DPoP error="invalid_token", algs="ES256 EdDSA Ed25519"/);
    }
  });

  it('a proof replayed is refused, on the same replica and on the other', async () => {
    const once = await proof();
    expect((await mcp(a, `DPoP ${bound}`, once)).status).toBe(200);
    for (const server of [a, b]) {
      const r = await mcp(server, `DPoP ${bound}`, once);
      expect(r).toMatchObject({ status: 401, code: 'INVALID_DPOP_PROOF' });
      expect(r.challenge).toMatch(/^DPoP error="invalid_dpop_proof", algs="/);
    }
  });

  it('a proof used first on the other replica is refused here', async () => {
    const once = await proof();
    expect((await mcp(b, `DPoP ${bound}`, once)).status).toBe(200);
    expect(await mcp(a, `DPoP ${bound}`, once)).toMatchObject({
      status: 401,
      code: 'INVALID_DPOP_PROOF',
    });
  });

  it('each bad proof is refused as INVALID_DPOP_PROOF with the DPoP challenge', async () => {
    const other = await generateKeyPair('ES256');
    const now = Math.floor(Date.now() / 1000);
    const stale = now - DPOP_PROOF_WINDOW_SECONDS - 30;
    const cases: [string, string | string[] | undefined][] = [
      ['no proof', undefined],
      ['two proofs', [await proof(), await proof()]],
      ['not a JWT', 'not-a-jwt'],
      ['wrong htm', await proof({ htm: 'GET' })],
      ['wrong htu (path)', await proof({}, { url: `${a.url}/v1/accounts` })],
      ['wrong htu (host)', await proof({}, { url: 'https://elsewhere.example/mcp' })],
      ['stale iat', await proof({ iat: stale })],
      ['iat in the future', await proof({ iat: now + DPOP_PROOF_WINDOW_SECONDS + 30 })],
      [
        'ath of another token',
        await proof({ ath: createHash('sha256').update('x').digest('base64url') }),
      ],
      ['no ath', await proof({ ath: undefined })],
      ['another key', await proof({}, { signer: other })],
      ['typ JWT', await proof({}, { typ: 'JWT' })],
      ['a nonce never issued', await proof({ nonce: 'n' })],
    ];
    for (const [label, dpop] of cases) {
      const r = await mcp(a, `DPoP ${bound}`, dpop);
      expect({ label, status: r.status, code: r.code }).toEqual({
        label,
        status: 401,
        code: 'INVALID_DPOP_PROOF',
      });
      expect(r.challenge, label).toMatch(/^DPoP error="invalid_dpop_proof", algs="/);
    }
  });

  it('a proof signed with a symmetric key (HS256) is refused', async () => {
    const secret = new TextEncoder().encode('s'.repeat(32));
    const hs = await new SignJWT({
      htm: 'POST',
      htu: `${a.url}/mcp`,
      iat: Math.floor(Date.now() / 1000),
      jti: randomUUID(),
      ath: createHash('sha256').update(bound).digest('base64url'),
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'dpop+jwt', jwk: publicJwk })
      .sign(secret);
    expect(await mcp(a, `DPoP ${bound}`, hs)).toMatchObject({
      status: 401,
      code: 'INVALID_DPOP_PROOF',
    });
  });

  it('is checked on REST routes too (refused there: its audience is the MCP URL)', async () => {
    const bearer = await a.request('/v1/accounts', { token: bound });
    expect(bearer.status).toBe(401);
    expect(bearer.headers.get('www-authenticate')).toMatch(/^DPoP error="invalid_token"/);
    const withProof = await fetch(`${a.url}/v1/accounts`, {
      headers: {
        authorization: `DPoP ${bound}`,
        dpop: await proof({ htm: 'GET' }, { url: `${a.url}/v1/accounts` }),
      },
    });
    expect(withProof.status).toBe(401);
  });
});

describe('a token bound to no key', () => {
  it('works as Bearer, and is refused under the DPoP scheme (INVALID_TOKEN, DPoP challenge)', async () => {
    const personal = a.tokens.owner;
    expect((await mcp(a, `Bearer ${personal}`)).status).toBe(200);
    const r = await mcp(a, `DPoP ${personal}`, await proof());
    expect(r).toMatchObject({ status: 401, code: 'INVALID_TOKEN' });
    expect(r.challenge).toMatch(/^DPoP error="invalid_token"/);
  });

  it('an unknown token under the DPoP scheme is INVALID_TOKEN', async () => {
    const r = await mcp(a, `DPoP ${newTokenSecret('oauth')}`, await proof());
    expect(r).toMatchObject({ status: 401, code: 'INVALID_TOKEN' });
  });
});

describe('discovery', () => {
  it('the protected resource metadata names the proof algorithms, like the authorization server', async () => {
    const prm: Json = await (
      await fetch(`${a.url}/.well-known/oauth-protected-resource/mcp`)
    ).json();
    const as: Json = await (await fetch(`${a.url}/.well-known/oauth-authorization-server`)).json();
    expect(prm.dpop_signing_alg_values_supported).toEqual(as.dpop_signing_alg_values_supported);
    expect(prm.dpop_bound_access_tokens_required).toBe(false);
  });
});
