/*
 * The audit trail's closed vocabularies. This file imports nothing: the admin console (a browser
 * bundle, apps/admin-console) takes its resource types and channels from here as they are.
 */

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
  'organization.created',
  'member.added',
  'person.sign_in_link_sent',
  'person.sign_in_refused',
  'person.signed_in',
  'confirmation_policy.updated',
  'approval.requested',
  'approval.approved',
  'approval.denied',
  'approval.expired',
  'approval.executed',
  'confirmation.confirmed',
  'confirmation.declined',
  'confirmation.refused',
  'approval.withdrawn',
  'confirmation.requested',
  'confirmation.expired',
  'confirmation.executed',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export const AUDIT_RESOURCE_TYPES = [
  'portal_user',
  'account',
  'member',
  'token',
  'organization',
  'person',
  'confirmation_policy',
  'approval',
  'confirmation',
] as const;
export type AuditResourceType = (typeof AUDIT_RESOURCE_TYPES)[number];

/**
 * `member`: a person of the organisation through a token; `portal_user`: accepting their own
 * invitation; `admin_command`: `npm run admin` (an operator with database access, no token);
 * `person`: a person who proved who they are on a sign-in page (no token); `anonymous`: someone
 * at a sign-in page who has not (e.g. whoever asked for a person's sign-in link).
 */
export const AUDIT_ACTOR_TYPES = [
  'member',
  'portal_user',
  'admin_command',
  'person',
  'anonymous',
] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

/**
 * `cli`: the admin command (always with the `admin_command` actor, and only then); `web`: the
 * sign-in pages (always with a `person` or `anonymous` actor, and only then).
 */
export const AUDIT_CHANNELS = ['api', 'mcp', 'cli', 'web'] as const;
export type AuditChannel = (typeof AUDIT_CHANNELS)[number];
