import { auditedFields, type AuditEntry } from '@app/audit-trail';
import type { ApiToken } from '@app/identity';

/** What a token's audit events show of it: never its secret or its hash. */
const AUDITED = auditedFields('name', 'kind', 'user_id', 'scopes', 'expires_at');

/**
 * The audit event of a token just issued, however it was issued (`POST /v1/tokens`, or the admin
 * command that sets up an organisation): its fields from `null`, scopes in sorted order.
 */
export function tokenCreatedEvent(token: ApiToken): AuditEntry {
  return {
    action: 'token.created',
    resourceType: 'token',
    resourceId: token.id,
    resourceLabel: token.name,
    changes: AUDITED.created({
      name: token.name,
      kind: token.kind,
      user_id: token.userId,
      scopes: [...token.scopes].sort(),
      expires_at: token.expiresAt,
    }),
  };
}
