import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { ConfirmationBinding } from './confirmation.binding.js';

/** Larger `requestState` values are refused before any decoding or MAC work. */
export const MAX_REQUEST_STATE_LENGTH = 2048;

/** What a `requestState` asserts, once its MAC has been verified: a question and its binding. */
export interface RequestStateClaims extends ConfirmationBinding {
  confirmationId: string;
  /** Unix seconds. */
  expiresAtUnix: number;
  /**
   * The version of the tool's confirmation policy the question was asked under (0: the default,
   * never set; also every state signed before policies existed).
   */
  policyVersion: number;
}

export type RequestStateVerdict =
  { ok: true; claims: RequestStateClaims } | { ok: false; reason: 'malformed' | 'bad_mac' };

/**
 * The wire payload, version 2 (version 1 had no `pv`: read as policy version 0, so a state issued
 * before an upgrade still redeems under a policy nobody has set). Key order is fixed by
 * {@link RequestStateCodec.sign}.
 */
interface PayloadV2 {
  v: 2;
  cid: string;
  org: string;
  tok: string;
  usr: string;
  tool: string;
  dig: string;
  exp: number;
  pv: number;
}

const PAYLOAD_KEYS_V1 = ['v', 'cid', 'org', 'tok', 'usr', 'tool', 'dig', 'exp'] as const;
const PAYLOAD_KEYS = [...PAYLOAD_KEYS_V1, 'pv'] as const;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DIGEST = /^[0-9a-f]{64}$/;
const MAC_BYTES = 32;
/** The label the signing keys are derived under (a change invalidates every state in flight). */
export const REQUEST_STATE_KEY_LABEL = 'mcp-request-state v1';

/**
 * `requestState` = base64url(payload JSON) + "." + base64url(HMAC-SHA256(key, first part)).
 * The keys are derived from the server's secrets (HMAC of each with a label of its own), so the raw
 * secret signs nothing here and no other consumer's MAC is ever a valid state. Signs with the first
 * secret's key and verifies with every one of them (rotation: put the new secret first, keep the
 * old one listed until the longest TTL has passed, then remove it).
 * The MAC is checked (constant time) before the payload is parsed.
 */
export class RequestStateCodec {
  private readonly keys: readonly KeyObject[];

  constructor(keys: readonly string[]) {
    if (keys.length === 0)
      throw new Error('RequestStateCodec needs at least one key (SERVER_SECRET_KEYS)');
    this.keys = keys.map((secret) =>
      createSecretKey(createHmac('sha256', secret).update(REQUEST_STATE_KEY_LABEL).digest()),
    );
  }

  sign(claims: RequestStateClaims): string {
    const payload: PayloadV2 = {
      v: 2,
      cid: claims.confirmationId,
      org: claims.organizationId,
      tok: claims.tokenId,
      usr: claims.userId,
      tool: claims.tool,
      dig: claims.argumentsDigest,
      exp: claims.expiresAtUnix,
      pv: claims.policyVersion,
    };
    const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
    const state = `${body}.${mac(this.keys[0], body).toString('base64url')}`;
    if (state.length > MAX_REQUEST_STATE_LENGTH) {
      throw new RangeError(`requestState would exceed ${MAX_REQUEST_STATE_LENGTH} characters`);
    }
    return state;
  }

  verify(state: unknown): RequestStateVerdict {
    if (
      typeof state !== 'string' ||
      state.length === 0 ||
      state.length > MAX_REQUEST_STATE_LENGTH
    ) {
      return { ok: false, reason: 'malformed' };
    }
    const dot = state.indexOf('.');
    if (dot <= 0 || dot !== state.lastIndexOf('.')) return { ok: false, reason: 'malformed' };
    const body = state.slice(0, dot);
    const macText = state.slice(dot + 1);
    if (!BASE64URL.test(body) || !BASE64URL.test(macText))
      return { ok: false, reason: 'malformed' };
    const presented = Buffer.from(macText, 'base64url');
    // Canonical encoding only: one state string per payload and MAC.
    if (presented.length !== MAC_BYTES || presented.toString('base64url') !== macText) {
      return { ok: false, reason: 'malformed' };
    }

    let authentic = false;
    for (const key of this.keys) {
      // No early exit: the work does not depend on which key (if any) matches.
      if (timingSafeEqual(mac(key, body), presented)) authentic = true;
    }
    if (!authentic) return { ok: false, reason: 'bad_mac' };

    const claims = parsePayload(body);
    return claims === undefined ? { ok: false, reason: 'malformed' } : { ok: true, claims };
  }
}

function mac(key: KeyObject, body: string): Buffer {
  return createHmac('sha256', key).update(body, 'utf8').digest();
}

/** Authentic bytes are still validated like any input (an unknown version is malformed). */
function parsePayload(body: string): RequestStateClaims | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const p: { [K in (typeof PAYLOAD_KEYS)[number]]?: unknown } = value;
  const expected = p.v === 1 ? PAYLOAD_KEYS_V1 : PAYLOAD_KEYS;
  const keys = Object.keys(value);
  if (keys.length !== expected.length || !expected.every((k) => Object.hasOwn(value, k))) {
    return undefined;
  }
  const policyVersion = p.v === 1 ? 0 : p.pv;
  if (
    (p.v !== 1 && p.v !== 2) ||
    typeof policyVersion !== 'number' ||
    !Number.isSafeInteger(policyVersion) ||
    policyVersion < 0 ||
    !isUuid(p.cid) ||
    !isUuid(p.org) ||
    !isUuid(p.tok) ||
    !isUuid(p.usr) ||
    typeof p.tool !== 'string' ||
    p.tool.length === 0 ||
    typeof p.dig !== 'string' ||
    !DIGEST.test(p.dig) ||
    typeof p.exp !== 'number' ||
    !Number.isSafeInteger(p.exp) ||
    p.exp <= 0
  ) {
    return undefined;
  }
  return {
    confirmationId: p.cid,
    organizationId: p.org,
    tokenId: p.tok,
    userId: p.usr,
    tool: p.tool,
    argumentsDigest: p.dig,
    expiresAtUnix: p.exp,
    policyVersion,
  };
}

function isUuid(v: unknown): v is string {
  return typeof v === 'string' && UUID.test(v);
}
