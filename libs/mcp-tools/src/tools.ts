import { ACCOUNTS_ENDPOINTS } from '@app/accounts';
import { AUDIT_TRAIL_ENDPOINTS } from '@app/audit-trail';
import { ME_ENDPOINTS } from '@app/identity';
import { PORTAL_USERS_ENDPOINTS } from '@app/portal-users';
import type { ToolAnnotations, ToolDefinition } from './tool-definition.js';

const read = (title: string): ToolAnnotations => ({
  title,
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});
const write = (title: string, idempotent: boolean, openWorld = false): ToolAnnotations => ({
  title,
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: idempotent,
  openWorldHint: openWorld,
});
const destroy = (title: string): ToolAnnotations => ({
  title,
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
});

const ERRORS =
  'Failures come back as a result with isError true and the API error envelope ' +
  '{"error":{"code","message","details"?}}; read the code and message and correct the call.';

/**
 * Every MCP tool, in the order `tools/list` shows them. Each dispatches to one REST endpoint; its
 * scope and permission are the endpoint's (PRODUCT §7).
 */
export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'get_current_context',
    description:
      'Who this connection acts as: the person who authorized the client, the organisation, the token ' +
      'scopes and the person’s permissions. Call it first when unsure what you may do.',
    annotations: read('Current context'),
    access: {},
    endpoint: ME_ENDPOINTS.me,
  },
  {
    name: 'list_portal_users',
    description:
      'List the organisation’s portal users (people with access to the customer portal), newest first. ' +
      'Filter by status (invited, active, inactive), account_id, or q (matches name or e-mail). ' +
      'Paginated: pass next_cursor back as cursor to get the next page. ' +
      ERRORS,
    annotations: read('List portal users'),
    access: {
      scope: { resource: 'portal_users', access: 'read' },
      permission: 'portal_users.read',
    },
    endpoint: PORTAL_USERS_ENDPOINTS.list,
  },
  {
    name: 'get_portal_user',
    description: `Get one portal user by id, with status and account. ${ERRORS}`,
    annotations: read('Get portal user'),
    access: {
      scope: { resource: 'portal_users', access: 'read' },
      permission: 'portal_users.read',
    },
    endpoint: PORTAL_USERS_ENDPOINTS.get,
  },
  {
    name: 'create_portal_user',
    description:
      'Create a portal user and (unless send_invitation is false) e-mail them an invitation. The e-mail ' +
      'must be unique in the organisation (DUPLICATE_ERROR), as must external_id (CONFLICT); account_id ' +
      `must be an account of this organisation. ${ERRORS}`,
    annotations: write('Create portal user', false, true),
    access: {
      scope: { resource: 'portal_users', access: 'write' },
      permission: 'portal_users.manage',
    },
    endpoint: PORTAL_USERS_ENDPOINTS.create,
  },
  {
    name: 'update_portal_user',
    description: `Change a portal user’s name, e-mail, external_id or account. Only the fields given change. ${ERRORS}`,
    annotations: write('Update portal user', true),
    access: {
      scope: { resource: 'portal_users', access: 'write' },
      permission: 'portal_users.manage',
    },
    endpoint: PORTAL_USERS_ENDPOINTS.update,
  },
  {
    name: 'resend_portal_user_invitation',
    description:
      'Send the invitation e-mail again to a portal user who has not accepted it yet. A user who is already ' +
      `active cannot be invited again (BAD_REQUEST). ${ERRORS}`,
    annotations: write('Resend invitation', false, true),
    access: {
      scope: { resource: 'portal_users', access: 'write' },
      permission: 'portal_users.invite',
    },
    endpoint: PORTAL_USERS_ENDPOINTS.resendInvitation,
  },
  {
    name: 'deactivate_portal_user',
    description:
      'Deactivate an active portal user (they can no longer sign in; reversible with activate_portal_user). ' +
      `A user who never accepted the invitation cannot be deactivated (FORBIDDEN). ${ERRORS}`,
    annotations: write('Deactivate portal user', true),
    access: {
      scope: { resource: 'portal_users', access: 'write' },
      permission: 'portal_users.manage',
    },
    endpoint: PORTAL_USERS_ENDPOINTS.deactivate,
  },
  {
    name: 'activate_portal_user',
    description: `Reactivate an inactive portal user. ${ERRORS}`,
    annotations: write('Activate portal user', true),
    access: {
      scope: { resource: 'portal_users', access: 'write' },
      permission: 'portal_users.manage',
    },
    endpoint: PORTAL_USERS_ENDPOINTS.activate,
  },
  {
    name: 'delete_portal_user',
    description:
      'Delete a portal user permanently. Destructive: the person using the client is asked to confirm ' +
      '(protocol 2026-07-28 with form elicitation); without that the call returns confirmation_required and ' +
      `nothing is deleted. ${ERRORS}`,
    annotations: destroy('Delete portal user'),
    access: {
      scope: { resource: 'portal_users', access: 'write' },
      permission: 'portal_users.delete',
    },
    endpoint: PORTAL_USERS_ENDPOINTS.delete,
    confirmation: {
      targetType: 'portal_user',
      lookup: PORTAL_USERS_ENDPOINTS.get,
      question: (r, clean) =>
        `Delete portal user ${clean(r.name)} <${clean(r.email)}>? This cannot be undone.`,
    },
  },
  {
    name: 'list_accounts',
    description:
      'List the organisation’s customer accounts (companies), newest first. Paginated with cursor / ' +
      `next_cursor. ${ERRORS}`,
    annotations: read('List accounts'),
    access: { scope: { resource: 'accounts', access: 'read' }, permission: 'accounts.read' },
    endpoint: ACCOUNTS_ENDPOINTS.list,
  },
  {
    name: 'get_account',
    description: `Get one customer account by id. ${ERRORS}`,
    annotations: read('Get account'),
    access: { scope: { resource: 'accounts', access: 'read' }, permission: 'accounts.read' },
    endpoint: ACCOUNTS_ENDPOINTS.get,
  },
  {
    name: 'create_account',
    description:
      'Create a customer account. external_id must be unique in the organisation (CONFLICT), as must ' +
      `tax_id (DUPLICATE_ERROR). ${ERRORS}`,
    annotations: write('Create account', false),
    access: { scope: { resource: 'accounts', access: 'write' }, permission: 'accounts.manage' },
    endpoint: ACCOUNTS_ENDPOINTS.create,
  },
  {
    name: 'update_account',
    description: `Change an account’s name, external_id or tax_id. Only the fields given change. ${ERRORS}`,
    annotations: write('Update account', true),
    access: { scope: { resource: 'accounts', access: 'write' }, permission: 'accounts.manage' },
    endpoint: ACCOUNTS_ENDPOINTS.update,
  },
  {
    name: 'delete_account',
    description:
      'Delete a customer account permanently. Refused (FORBIDDEN) while it still has active portal users. ' +
      'Destructive: the person using the client is asked to confirm (protocol 2026-07-28 with form ' +
      `elicitation); without that the call returns confirmation_required and nothing is deleted. ${ERRORS}`,
    annotations: destroy('Delete account'),
    access: { scope: { resource: 'accounts', access: 'write' }, permission: 'accounts.delete' },
    endpoint: ACCOUNTS_ENDPOINTS.delete,
    confirmation: {
      targetType: 'account',
      lookup: ACCOUNTS_ENDPOINTS.get,
      question: (r, clean) =>
        `Delete account ${clean(r.name)}${r.tax_id ? ` (tax id ${clean(r.tax_id)})` : ''}? This cannot be undone.`,
    },
  },
  {
    name: 'list_audit_events',
    description:
      'The organisation’s audit trail: every write, by people through the API and by agents through MCP ' +
      '(channel), each naming the actor, the token and the resource in words. Filter by actor, action, ' +
      'resource_type, resource_id, channel, since, until (ISO 8601), and q (text in the actor’s name or ' +
      'e-mail, the token’s name or the resource label: finds a deleted portal user’s history by e-mail). ' +
      `Paginated with cursor / next_cursor. ${ERRORS}`,
    annotations: read('List audit events'),
    access: { scope: { resource: 'audit', access: 'read' }, permission: 'audit.read' },
    endpoint: AUDIT_TRAIL_ENDPOINTS.listAuditEvents,
  },
];
