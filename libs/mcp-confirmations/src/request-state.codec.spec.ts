import { createHmac, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  MAX_REQUEST_STATE_LENGTH,
  REQUEST_STATE_KEY_LABEL,
  RequestStateCodec,
  type RequestStateClaims,
} from './request-state.codec.js';

const KEY_A = 'a'.repeat(16) + '-current-signing-key-0123456789';
const KEY_B = 'b'.repeat(16) + '-previous-signing-key-012345678';
const KEY_C = 'c'.repeat(16) + '-someone-elses-key-0123456789ab';

function claims(over: Partial<RequestStateClaims> = {}): RequestStateClaims {
  return {
    confirmationId: randomUUID(),
    organizationId: randomUUID(),
    tokenId: randomUUID(),
    userId: randomUUID(),
    tool: 'delete_portal_user',
    argumentsDigest: 'ab'.repeat(32),
    expiresAtUnix: 1_900_000_000,
    policyVersion: 3,
    ...over,
  };
}

function b64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

/** A state MAC'd with `key` itself (not derived from it) over `payloadJson`. */
function macWithRawKey(key: string | Buffer, payloadJson: string): string {
  const body = b64(payloadJson);
  return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
}

/** A state signed correctly by the server whose secret is `secret`, over an arbitrary payload text. */
function forge(secret: string, payloadJson: string): string {
  const key = createHmac('sha256', secret).update(REQUEST_STATE_KEY_LABEL).digest();
  return macWithRawKey(key, payloadJson);
}

function parts(state: string): [string, string] {
  const [body, mac, ...rest] = state.split('.');
  if (body === undefined || mac === undefined || rest.length > 0) throw new Error('not a state');
  return [body, mac];
}

function payloadOf(state: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(
    Buffer.from(state.split('.')[0] ?? '', 'base64url').toString(),
  );
  if (typeof parsed !== 'object' || parsed === null) throw new Error('not an object');
  return { ...parsed };
}

describe('RequestStateCodec', () => {
  const codec = new RequestStateCodec([KEY_A]);

  it('round-trips the claims through a compact base64url "payload.mac" string', () => {
    const c = claims();
    const state = codec.sign(c);
    expect(state).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(codec.verify(state)).toEqual({ ok: true, claims: c });
  });

  it('carries the versioned payload { v:2, cid, org, tok, usr, tool, dig, exp, pv }', () => {
    const c = claims();
    expect(payloadOf(codec.sign(c))).toEqual({
      v: 2,
      cid: c.confirmationId,
      org: c.organizationId,
      tok: c.tokenId,
      usr: c.userId,
      tool: c.tool,
      dig: c.argumentsDigest,
      exp: c.expiresAtUnix,
      pv: c.policyVersion,
    });
  });

  it('reads a version 1 state (signed before policies existed) as policy version 0', () => {
    const c = claims();
    const { pv: _pv, ...v1 } = { ...payloadOf(codec.sign(c)), v: 1 } as Record<string, unknown>;
    expect(codec.verify(forge(KEY_A, JSON.stringify(v1)))).toEqual({
      ok: true,
      claims: { ...c, policyVersion: 0 },
    });
    // …but a version 1 payload carrying `pv`, or a version 2 one without it, is not ours.
    expect(codec.verify(forge(KEY_A, JSON.stringify({ ...v1, pv: 3 }))).ok).toBe(false);
    const { pv: _gone, ...v2 } = payloadOf(codec.sign(c));
    expect(codec.verify(forge(KEY_A, JSON.stringify(v2))).ok).toBe(false);
  });

  it.each([
    ['v', 1],
    ['pv', 4],
    ['cid', randomUUID()],
    ['org', randomUUID()],
    ['tok', randomUUID()],
    ['usr', randomUUID()],
    ['tool', 'delete_account'],
    ['dig', 'cd'.repeat(32)],
    ['exp', 1_999_999_999],
  ])('changing %s in the payload (keeping the MAC) is bad_mac', (field, value) => {
    const state = codec.sign(claims());
    const mac = state.split('.')[1];
    const tampered = `${b64(JSON.stringify({ ...payloadOf(state), [field]: value }))}.${mac}`;
    expect(codec.verify(tampered)).toEqual({ ok: false, reason: 'bad_mac' });
  });

  it('a flipped MAC bit, or another state’s MAC, is bad_mac', () => {
    const state = codec.sign(claims());
    const [body, macText] = parts(state);
    const mac = Buffer.from(macText, 'base64url');
    mac[5] = (mac[5] ?? 0) ^ 0x01;
    expect(codec.verify(`${body}.${mac.toString('base64url')}`)).toEqual({
      ok: false,
      reason: 'bad_mac',
    });
    const otherMac = codec.sign(claims()).split('.')[1];
    expect(codec.verify(`${body}.${otherMac}`)).toEqual({ ok: false, reason: 'bad_mac' });
  });

  it('the raw secret signs nothing: a MAC under the secret itself is bad_mac', () => {
    const payload = payloadOf(codec.sign(claims()));
    expect(codec.verify(macWithRawKey(KEY_A, JSON.stringify(payload)))).toEqual({
      ok: false,
      reason: 'bad_mac',
    });
    expect(codec.verify(forge(KEY_A, JSON.stringify(payload))).ok).toBe(true);
  });

  it('a state signed with a key we do not hold is bad_mac', () => {
    const foreign = new RequestStateCodec([KEY_C]).sign(claims());
    expect(codec.verify(foreign)).toEqual({ ok: false, reason: 'bad_mac' });
  });

  it('rotation: the first key signs, every listed key verifies, a removed key no longer does', () => {
    const before = new RequestStateCodec([KEY_B]);
    const during = new RequestStateCodec([KEY_A, KEY_B]);
    const after = new RequestStateCodec([KEY_A]);

    const oldState = before.sign(claims());
    expect(during.verify(oldState).ok).toBe(true);
    expect(after.verify(oldState)).toEqual({ ok: false, reason: 'bad_mac' });

    const newState = during.sign(claims());
    expect(after.verify(newState).ok).toBe(true); // signed with the first key, KEY_A
    expect(before.verify(newState)).toEqual({ ok: false, reason: 'bad_mac' });
  });

  it('refuses anything over 2 KiB as malformed, even when correctly signed and otherwise valid', () => {
    // A long tool name is the only field that can grow; signed with our key, it would verify.
    const payload = { ...payloadOf(codec.sign(claims())), tool: 't'.repeat(1_600) };
    const big = forge(KEY_A, JSON.stringify(payload));
    expect(big.length).toBeGreaterThan(MAX_REQUEST_STATE_LENGTH);
    expect(codec.verify(big)).toEqual({ ok: false, reason: 'malformed' });
    const fits = forge(KEY_A, JSON.stringify({ ...payload, tool: 't'.repeat(1_000) }));
    expect(fits.length).toBeLessThanOrEqual(MAX_REQUEST_STATE_LENGTH);
    expect(codec.verify(fits).ok).toBe(true);
    expect(codec.verify('A'.repeat(10_000_000))).toEqual({ ok: false, reason: 'malformed' });
    expect(() => codec.sign(claims({ tool: 't'.repeat(2_000) }))).toThrow(RangeError);
  });

  it.each([
    ['not a string', 42],
    ['undefined', undefined],
    ['an object', { state: 'x' }],
    ['empty', ''],
    ['no dot', 'abcdef'],
    ['two dots', 'ab.cd.ef'],
    ['empty payload', '.abc'],
    ['empty MAC', 'abc.'],
    ['non-base64url characters', 'ab+c.de/f'],
    ['a MAC of the wrong length', `${b64('{}')}.${Buffer.alloc(16).toString('base64url')}`],
  ])('refuses %s as malformed', (_label, state) => {
    expect(codec.verify(state)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('accepts only the canonical encoding of the MAC', () => {
    const state = codec.sign(claims());
    const [body, macText] = parts(state);
    // 32 bytes → 43 characters; the last one carries 2 unused bits. Setting them keeps the bytes.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const last = alphabet.indexOf(macText.at(-1) ?? 'A');
    const variant = `${body}.${macText.slice(0, -1)}${alphabet[last | 0b11]}`;
    expect(Buffer.from(variant.split('.')[1] ?? '', 'base64url')).toEqual(
      Buffer.from(macText, 'base64url'),
    );
    expect(variant).not.toBe(state);
    expect(codec.verify(variant)).toEqual({ ok: false, reason: 'malformed' });
    expect(codec.verify(state).ok).toBe(true);
  });

  it('validates authentic payloads too: unknown version, extra or missing fields, bad values → malformed', () => {
    const good = payloadOf(codec.sign(claims()));
    const { exp: _exp, ...withoutExp } = good;
    for (const payload of [
      { ...good, v: 3 },
      { ...good, admin: true },
      { ...good, pv: -1 },
      { ...good, pv: 1.5 },
      { ...good, pv: '3' },
      withoutExp,
      { ...good, cid: 'not-a-uuid' },
      { ...good, dig: 'XYZ' },
      { ...good, exp: 1.5 },
      { ...good, exp: '1900000000' },
      { ...good, tool: '' },
    ]) {
      expect(codec.verify(forge(KEY_A, JSON.stringify(payload)))).toEqual({
        ok: false,
        reason: 'malformed',
      });
    }
    expect(codec.verify(forge(KEY_A, 'not json'))).toEqual({ ok: false, reason: 'malformed' });
    expect(codec.verify(forge(KEY_A, '[1,2]'))).toEqual({ ok: false, reason: 'malformed' });
    expect(codec.verify(forge(KEY_A, JSON.stringify(good))).ok).toBe(true);
  });

  it('needs at least one key', () => {
    expect(() => new RequestStateCodec([])).toThrow(/at least one key/);
  });
});
