import { createHash, randomBytes } from 'node:crypto';
import type { TokenKind } from '@app/access-vocabulary';

const PREFIX: Record<TokenKind, string> = { personal: 'pat_', oauth: 'oat_' };
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const SHAPE = /^(pat|oat)_[0-9A-Za-z]{40}$/;

/** A new secret: kind prefix + 40 base62 characters (~238 bits). Shown once, stored hashed. */
export function newTokenSecret(kind: TokenKind): string {
  const bytes = randomBytes(40);
  let out = PREFIX[kind];
  for (const b of bytes) out += ALPHABET[b % 62];
  return out;
}

/** Cheap shape check so garbage never reaches the database. */
export function looksLikeTokenSecret(secret: string): boolean {
  return SHAPE.test(secret);
}

export function hashTokenSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** What may be shown of a token after creation: kind prefix and the first 6 characters. */
export function displayPrefix(secret: string): string {
  return secret.slice(0, 10);
}
