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
      'List the organisation’s portal users (people invited to the customer portal), newest first, with ' +
      'their status and account. Filter by status, account_id or q; page with cursor and next_cursor.',
    annotations: read('List portal users'),
    access: {
      scope: { resource: 'portal_users', access: 'read' },
      permission: 'portal_users.read',
    },
    endpoint: PORTAL_USERS_ENDPOINTS.list,
  },
  {
    name: 'get_portal_user',
    description:
      'Get one portal user by id: name, e-mail, status (invited, active, inactive), account and ' +
      'invitation dates.',
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
      'Create a portal user (status invited) and, unless send_invitation is false, e-mail them an ' +
      'invitation to the customer portal. Returns the new portal user.',
    annotations: write('Create portal user', false, true),
    access: {
      scope: { resource: 'portal_users', access: 'write' },
      permission: 'portal_users.manage',
    },
    endpoint: PORTAL_USERS_ENDPOINTS.create,
  },
  {
    name: 'update_portal_user',
    description:
      'Change a portal user’s name, e-mail, external_id or account; only the fields given change. ' +
      'Returns the updated portal user.',
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
      'Send the invitation e-mail again (with a fresh expiry) to a portal user who has not accepted ' +
      'it yet; an active user cannot be invited again.',
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
      'Deactivate an active portal user: they can no longer sign in. Reversible with ' +
      'activate_portal_user; a user who never accepted the invitation cannot be deactivated.',
    annotations: write('Deactivate portal user', true),
    access: {
      scope: { resource: 'portal_users', access: 'write' },
      permission: 'portal_users.manage',
    },
    endpoint: PORTAL_USERS_ENDPOINTS.deactivate,
  },
  {
    name: 'activate_portal_user',
    description:
      'Reactivate an inactive portal user so they can sign in again. Returns the portal user.',
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
      'Delete a portal user permanently. The person using the client confirms first (a form ' +
      'elicitation on protocol 2026-07-28); otherwise the answer is confirmation_required and nothing ' +
      'is deleted. Prefer deactivate_portal_user when access only needs to stop.',
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
      'List the organisation’s customer accounts (companies), newest first. Filter by q (name); ' +
      'page with cursor and next_cursor.',
    annotations: read('List accounts'),
    access: { scope: { resource: 'accounts', access: 'read' }, permission: 'accounts.read' },
    endpoint: ACCOUNTS_ENDPOINTS.list,
  },
  {
    name: 'get_account',
    description: 'Get one customer account by id: name, external_id and tax_id.',
    annotations: read('Get account'),
    access: { scope: { resource: 'accounts', access: 'read' }, permission: 'accounts.read' },
    endpoint: ACCOUNTS_ENDPOINTS.get,
  },
  {
    name: 'create_account',
    description:
      'Create a customer account (a company that portal users can belong to). Returns the new ' +
      'account; link portal users to it with their account_id.',
    annotations: write('Create account', false),
    access: { scope: { resource: 'accounts', access: 'write' }, permission: 'accounts.manage' },
    endpoint: ACCOUNTS_ENDPOINTS.create,
  },
  {
    name: 'update_account',
    description:
      'Change an account’s name, external_id or tax_id; only the fields given change. Returns the ' +
      'updated account.',
    annotations: write('Update account', true),
    access: { scope: { resource: 'accounts', access: 'write' }, permission: 'accounts.manage' },
    endpoint: ACCOUNTS_ENDPOINTS.update,
  },
  {
    name: 'delete_account',
    description:
      'Delete a customer account permanently; refused while it still has active portal users. The ' +
      'person using the client confirms first (a form elicitation on protocol 2026-07-28); otherwise ' +
      'the answer is confirmation_required and nothing is deleted.',
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
      'The organisation’s audit trail, newest first: every write, by people through the API and by ' +
      'agents through MCP, with who, when and what changed. Filter by actor, action, record, channel ' +
      'and time; page with cursor and next_cursor.',
    annotations: read('List audit events'),
    access: { scope: { resource: 'audit', access: 'read' }, permission: 'audit.read' },
    endpoint: AUDIT_TRAIL_ENDPOINTS.listAuditEvents,
  },
];
