import { createHash, randomBytes } from 'node:crypto';

/** Invitations stay valid this long after they are sent. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

const SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** A new invitation secret: 32 random bytes, base64url (43 characters). Sent once, stored hashed. */
export function newInvitationToken(): string {
  return randomBytes(32).toString('base64url');
}

export function looksLikeInvitationToken(token: string): boolean {
  return SHAPE.test(token);
}

export function hashInvitationToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
