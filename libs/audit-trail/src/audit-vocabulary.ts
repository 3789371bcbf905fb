/** Every action the audit trail records, `<resource>.<verb>`. Closed: a new write adds its action here. */
export const AUDIT_ACTIONS = [
  'portal_user.created',
  'portal_user.updated',
  'portal_user.invitation_sent',
  'portal_user.invitation_accepted',
  'portal_user.deactivated',
  'portal_user.activated',
  'portal_user.deleted',
  'account.created',
  'account.updated',
  'account.deleted',
  'member.updated',
  'token.created',
  'token.revoked',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_RESOURCE_TYPES = ['portal_user', 'account', 'member', 'token'] as const;
export type AuditResourceType = (typeof AUDIT_RESOURCE_TYPES)[number];

/** `member`: a person of the organisation through a token; `portal_user`: accepting their own invitation. */
export const AUDIT_ACTOR_TYPES = ['member', 'portal_user'] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

export const AUDIT_CHANNELS = ['api', 'mcp'] as const;
