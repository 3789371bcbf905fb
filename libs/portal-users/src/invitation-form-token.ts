import { createHmac, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig, serverSecretKeys } from '@app/config';

const PURPOSE = 'portal-invitation-form\n';

/**
 * The hidden field of the invitation page's form: an HMAC of the invitation (its secret's hash)
 * under the server's keys, so a form POST is accepted only when it was rendered by this server for
 * this invitation (a page elsewhere cannot forge it). Stateless, so every replica verifies it; the
 * keys are the server's master secret (`SERVER_SECRET_KEYS`), under a purpose prefix of its own;
 * the first signs, all verify (rotation).
 */
@Injectable()
export class InvitationFormTokens {
  private readonly keys: readonly [string, ...string[]];

  constructor(config: AppConfig) {
    this.keys = serverSecretKeys(config);
  }

  issue(invitationHash: string): string {
    return mac(this.keys[0], invitationHash);
  }

  verify(invitationHash: string, presented: unknown): boolean {
    if (typeof presented !== 'string' || presented.length === 0) return false;
    const given = Buffer.from(presented);
    return this.keys.some((key) => {
      const expected = Buffer.from(mac(key, invitationHash));
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
  }
}

function mac(key: string, invitationHash: string): string {
  return createHmac('sha256', key).update(PURPOSE).update(invitationHash).digest('base64url');
}
