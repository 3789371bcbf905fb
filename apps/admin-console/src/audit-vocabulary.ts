import type { AuditChannel } from '../../../libs/audit-trail/src/audit-vocabulary.js';

/**
 * The audit trail's vocabulary as the console's filters and badges offer it. The list of resource
 * types and channels is the server's own declaration (`libs/audit-trail/src/audit-vocabulary.ts`,
 * a file that imports nothing, so the browser bundle can take it as it is); the console adds only
 * its names for the channels.
 */
export { AUDIT_RESOURCE_TYPES } from '../../../libs/audit-trail/src/audit-vocabulary.js';

/** Each channel and how the console names it: one label for every channel, and no other (checked by the type). */
export const CHANNEL_LABELS = {
  api: 'API',
  mcp: 'Agent (MCP)',
  cli: 'Admin command',
  web: 'Web page',
} as const satisfies Record<AuditChannel, string>;
