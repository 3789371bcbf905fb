import {
  createHmac,
  createSecretKey,
  randomBytes,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';
import { isJsonObject } from '@app/common';
import { normalizeClientString } from '@app/common';
import type { McpClientInfo } from './mcp-endpoint.types.js';

/** Longer `Mcp-Session-Id` values are refused before any decoding or MAC work. */
export const MAX_SESSION_ID_LENGTH = 4096;

/** Separates this use of a configured secret from every other use of the same secret. */
const KEY_LABEL = 'mcp-session-id v1';
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const MAC_BYTES = 32;
const NONCE_BYTES = 16;
const PAYLOAD_KEYS = ['v', 'n', 'ver', 'r', 'u'] as const;

/**
 * What a session remembers of `initialize`: the client, and whether it declared URL-mode
 * elicitation on 2025-11-25 (a `verified` confirmation needs it; the endpoint is stateless, so only
 * the signed session id can carry it to the later calls).
 */
export interface McpSession {
  clientInfo: McpClientInfo;
  urlElicitation: boolean;
}

/** What the endpoint needs from a session id scheme: mint one at `initialize`, read one back. */
export interface McpSessionIds {
  /** A session id carrying `clientInfo` (already normalised) and what it declared. */
  issue(clientInfo: McpClientInfo, declared?: { urlElicitation: boolean }): string;
  /** The `clientInfo` a session id carries, or `undefined` when this server did not issue it. */
  read(sessionId: string): McpClientInfo | undefined;
  /** The whole session a session id carries, or `undefined` when this server did not issue it. */
  readSession(sessionId: string): McpSession | undefined;
}

/**
 * Stateless 2025-era session ids: the session is nothing but the client's own `clientInfo` (name and
 * version), signed so that later requests can be attributed to it without any server state, on any
 * replica. Wire form: base64url(payload JSON) "." base64url(HMAC-SHA256(key, first part)); only
 * visible ASCII, as the transport requires. A random nonce makes every id unique.
 *
 * Keys are derived from the configured secrets (HMAC of each with a label of its own), so the raw
 * secret signs nothing here. The first key signs, every key verifies: rotating the secrets (new one
 * first, old one kept for a while) keeps every live session valid.
 */
export class McpSessionIdCodec implements McpSessionIds {
  private readonly keys: readonly KeyObject[];

  constructor(secrets: readonly string[]) {
    if (secrets.length === 0)
      throw new Error('McpSessionIdCodec needs at least one secret (SERVER_SECRET_KEYS)');
    this.keys = secrets.map((secret) =>
      createSecretKey(createHmac('sha256', secret).update(KEY_LABEL).digest()),
    );
  }

  issue(clientInfo: McpClientInfo, declared?: { urlElicitation: boolean }): string {
    const payload: Record<string, unknown> = { v: 1, n: clientInfo.name };
    if (clientInfo.version !== undefined) payload.ver = clientInfo.version;
    if (declared?.urlElicitation === true) payload.u = 1;
    payload.r = randomBytes(NONCE_BYTES).toString('base64url');
    const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
    return `${body}.${mac(this.keys[0], body).toString('base64url')}`;
  }

  read(sessionId: string): McpClientInfo | undefined {
    return this.readSession(sessionId)?.clientInfo;
  }

  readSession(sessionId: string): McpSession | undefined {
    if (sessionId.length === 0 || sessionId.length > MAX_SESSION_ID_LENGTH) return undefined;
    const dot = sessionId.indexOf('.');
    if (dot <= 0 || dot !== sessionId.lastIndexOf('.')) return undefined;
    const body = sessionId.slice(0, dot);
    const macText = sessionId.slice(dot + 1);
    if (!BASE64URL.test(body) || !BASE64URL.test(macText)) return undefined;
    const presented = Buffer.from(macText, 'base64url');
    if (presented.length !== MAC_BYTES || presented.toString('base64url') !== macText) {
      return undefined;
    }
    let authentic = false;
    for (const key of this.keys) {
      // No early exit: the work does not depend on which key (if any) matches.
      if (timingSafeEqual(mac(key, body), presented)) authentic = true;
    }
    return authentic ? parsePayload(body) : undefined;
  }
}

function mac(key: KeyObject, body: string): Buffer {
  return createHmac('sha256', key).update(body, 'utf8').digest();
}

/** Authentic bytes are still validated like any input, and normalised again on the way out. */
function parsePayload(body: string): McpSession | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isJsonObject(value)) return undefined;
  if (!Object.keys(value).every((k) => (PAYLOAD_KEYS as readonly string[]).includes(k))) {
    return undefined;
  }
  if (value.v !== 1 || typeof value.n !== 'string' || typeof value.r !== 'string') return undefined;
  if (value.u !== undefined && value.u !== 1) return undefined;
  const urlElicitation = value.u === 1;
  const name = normalizeClientString(value.n);
  if (name === '') return undefined;
  if (value.ver === undefined) return { clientInfo: { name }, urlElicitation };
  if (typeof value.ver !== 'string') return undefined;
  return { clientInfo: { name, version: normalizeClientString(value.ver) }, urlElicitation };
}
