import { ACCOUNTS_ENDPOINTS } from '@app/accounts';
import { AUDIT_TRAIL_ENDPOINTS } from '@app/audit-trail';
import { ME_ENDPOINTS } from '@app/me';
import { PORTAL_USERS_ENDPOINTS } from '@app/portal-users';
import type { ConfirmationSpec, ToolAnnotations, ToolDefinition } from './tool-definition.js';

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

type Clean = (value: unknown) => string;

/** The fields a call changes, as `field → value` (sanitised), for an update's question. */
function changesOf(args: Record<string, unknown>, fields: readonly string[], clean: Clean): string {
  const changed = fields.filter((f) => args[f] !== undefined);
  if (changed.length === 0) return 'nothing';
  return changed.map((f) => `${f} → ${args[f] === null ? 'none' : clean(args[f])}`).join(', ');
}

/** A portal user as a question names them. */
const portalUser = (r: Record<string, unknown>, clean: Clean) =>
  `portal user ${clean(r.name)} <${clean(r.email)}>`;

/**
 * The question of a write tool on one portal user or account. It is asked only when the
 * organisation set a confirmation policy for the tool (a write tool's default is `none`).
 */
const onPortalUser = (question: ConfirmationSpec['question']): ConfirmationSpec => ({
  targetType: 'portal_user',
  lookup: PORTAL_USERS_ENDPOINTS.get,
  question,
});
const onAccount = (question: ConfirmationSpec['question']): ConfirmationSpec => ({
  targetType: 'account',
  lookup: ACCOUNTS_ENDPOINTS.get,
  question,
});

/**
 * Every MCP tool, in the order `tools/list` shows them. Each dispatches to one REST endpoint; its
 * scope and permission are the endpoint's (declared once, in the endpoint's contract).
 */
export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'get_current_context',
    description:
      'Who this connection acts as: the person who authorized the client, the organisation, the token ' +
      'scopes and the person’s permissions. Call it first when unsure what you may do.',
    annotations: read('Current context'),
    endpoint: ME_ENDPOINTS.me,
  },
  {
    name: 'list_portal_users',
    description:
      'List the organisation’s portal users (people invited to the customer portal), newest first, with ' +
      'their status and account. Filter by status, account_id or q; page with cursor and next_cursor.',
    annotations: read('List portal users'),
    endpoint: PORTAL_USERS_ENDPOINTS.list,
  },
  {
    name: 'get_portal_user',
    description:
      'Get one portal user by id: name, e-mail, status (invited, active, inactive), account and ' +
      'invitation dates.',
    annotations: read('Get portal user'),
    endpoint: PORTAL_USERS_ENDPOINTS.get,
  },
  {
    name: 'create_portal_user',
    description:
      'Create a portal user (status invited) and, unless send_invitation is false, e-mail them an ' +
      'invitation to the customer portal. Returns the new portal user, as get_portal_user does.',
    annotations: write('Create portal user', false, true),
    endpoint: PORTAL_USERS_ENDPOINTS.create,
    resultLike: 'get_portal_user',
    confirmation: {
      targetType: 'portal_user',
      question: (a, clean) =>
        `Create ${portalUser(a, clean)}${a.send_invitation === false ? '' : ' and e-mail them an invitation to the customer portal'}?`,
    },
  },
  {
    name: 'update_portal_user',
    description:
      'Change a portal user’s name, e-mail, external_id or account; only the fields given change. ' +
      'Returns the updated portal user, as get_portal_user does.',
    annotations: write('Update portal user', true),
    endpoint: PORTAL_USERS_ENDPOINTS.update,
    resultLike: 'get_portal_user',
    confirmation: onPortalUser(
      (r, clean, args) =>
        `Change ${portalUser(r, clean)}: ${changesOf(args, ['name', 'email', 'external_id', 'account_id'], clean)}?`,
    ),
  },
  {
    name: 'resend_portal_user_invitation',
    description:
      'Send the invitation e-mail again (with a fresh expiry) to a portal user who has not accepted ' +
      'it yet; an active user cannot be invited again. Returns the portal user, as get_portal_user does.',
    annotations: write('Resend invitation', false, true),
    endpoint: PORTAL_USERS_ENDPOINTS.resendInvitation,
    resultLike: 'get_portal_user',
    confirmation: onPortalUser(
      (r, clean) => `E-mail the invitation to ${portalUser(r, clean)} again?`,
    ),
  },
  {
    name: 'deactivate_portal_user',
    description:
      'Deactivate an active portal user: they can no longer sign in. Reversible with ' +
      'activate_portal_user; a user who never accepted the invitation cannot be deactivated. ' +
      'Returns the portal user, as get_portal_user does.',
    annotations: write('Deactivate portal user', true),
    endpoint: PORTAL_USERS_ENDPOINTS.deactivate,
    resultLike: 'get_portal_user',
    confirmation: onPortalUser(
      (r, clean) => `Deactivate ${portalUser(r, clean)}? They can no longer sign in.`,
    ),
  },
  {
    name: 'activate_portal_user',
    description:
      'Reactivate an inactive portal user so they can sign in again. Returns the portal user, as ' +
      'get_portal_user does.',
    annotations: write('Activate portal user', true),
    endpoint: PORTAL_USERS_ENDPOINTS.activate,
    resultLike: 'get_portal_user',
    confirmation: onPortalUser(
      (r, clean) => `Reactivate ${portalUser(r, clean)}? They can sign in again.`,
    ),
  },
  {
    name: 'delete_portal_user',
    description:
      'Delete a portal user permanently. The person confirms first (a form, or this server’s page ' +
      'via a URL elicitation) or another admin approves (approval_pending), as the organisation ' +
      'decides; else nothing is deleted. Prefer deactivate_portal_user when access only needs to stop.',
    annotations: destroy('Delete portal user'),
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
    endpoint: ACCOUNTS_ENDPOINTS.list,
  },
  {
    name: 'get_account',
    description: 'Get one customer account by id: name, external_id and tax_id.',
    annotations: read('Get account'),
    endpoint: ACCOUNTS_ENDPOINTS.get,
  },
  {
    name: 'create_account',
    description:
      'Create a customer account (a company that portal users can belong to). Returns the new ' +
      'account, as get_account does; link portal users to it with their account_id.',
    annotations: write('Create account', false),
    endpoint: ACCOUNTS_ENDPOINTS.create,
    resultLike: 'get_account',
    confirmation: {
      targetType: 'account',
      question: (a, clean) => `Create account ${clean(a.name)}?`,
    },
  },
  {
    name: 'update_account',
    description:
      'Change an account’s name, external_id or tax_id; only the fields given change. Returns the ' +
      'updated account, as get_account does.',
    annotations: write('Update account', true),
    endpoint: ACCOUNTS_ENDPOINTS.update,
    resultLike: 'get_account',
    confirmation: onAccount(
      (r, clean, args) =>
        `Change account ${clean(r.name)}: ${changesOf(args, ['name', 'external_id', 'tax_id'], clean)}?`,
    ),
  },
  {
    name: 'delete_account',
    description:
      'Delete a customer account permanently; refused while it still has active portal users. The ' +
      'person confirms first (a form, or this server’s page via a URL elicitation) or another admin ' +
      'approves (approval_pending), as the organisation decides; else nothing is deleted.',
    annotations: destroy('Delete account'),
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
      'agents through MCP, each naming the actor, the token and the resource in words. Filter by actor, ' +
      'action, record, channel and time, or search with q (text in the actor’s name or e-mail, the ' +
      'token’s name or the resource label: finds a deleted portal user’s history by e-mail); page ' +
      'with cursor and next_cursor.',
    annotations: read('List audit events'),
    endpoint: AUDIT_TRAIL_ENDPOINTS.listAuditEvents,
  },
];
