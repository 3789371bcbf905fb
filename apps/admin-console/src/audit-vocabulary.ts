/**
 * The audit trail's resource types and channels as the console's filters offer them. The console
 * is built apart from the server's libraries, so these mirror `AUDIT_RESOURCE_TYPES` and
 * `AUDIT_CHANNELS` (libs/audit-trail/src/audit-vocabulary.ts); test/unit/console-vocabulary.spec.ts
 * fails when the two differ.
 */
export const RESOURCE_TYPES = [
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

/** Each channel and how the console names it (filters and badges). */
export const CHANNEL_LABELS = {
  api: 'API',
  mcp: 'Agent (MCP)',
  cli: 'Admin command',
  web: 'Web page',
} as const;
