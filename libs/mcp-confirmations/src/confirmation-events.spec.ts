import { AsyncLocalStorage } from 'node:async_hooks';
import { ClsService } from 'nestjs-cls';
import { DataSource } from 'typeorm';
import { describe, expect, it, vi } from 'vitest';
import { AuditEventsRepository, AuditTrail } from '@app/audit-trail';
import { RequestContext } from '@app/identity';
import { testMcpCaller } from '@app/testing';
import { ConfirmationEvents, confirmationLabel, eventsOf } from './confirmation-events.js';
import type { McpConfirmation } from './mcp-confirmation.js';

const EXPIRES = new Date('2026-03-01T12:10:00.000Z');

function row(over: Partial<McpConfirmation> = {}): McpConfirmation {
  return {
    id: '6f1c2f0e-0000-4000-8000-000000000001',
    organizationId: 'org-1',
    tokenId: 'tok-1',
    userId: 'user-1',
    tool: 'delete_portal_user',
    argumentsDigest: 'd'.repeat(64),
    targetType: 'portal_user',
    targetId: 'pu-1',
    message: 'Delete portal user Ana Souza <ana@example.com>?',
    status: 'pending',
    protocolVersion: '2026-07-28',
    clientName: 'Claude Desktop',
    createdAt: new Date('2026-03-01T12:00:00.000Z'),
    expiresAt: EXPIRES,
    decidedAt: null,
    toolCallId: null,
    requestId: 'req-1',
    mode: 'form',
    policyVersion: 3,
    verifiedAt: null,
    ...over,
  };
}

const actions = (change: Parameters<typeof eventsOf>[0], r: McpConfirmation) =>
  eventsOf(change, r).map((e) => e.action);

describe('the audit events of a confirmation change', () => {
  it('asked: requested, with the mode, tool, target, policy version and expiry', () => {
    expect(eventsOf('created', row({ mode: 'verified' }))).toEqual([
      {
        action: 'confirmation.requested',
        changes: {
          status: { before: null, after: 'pending' },
          mode: { before: null, after: 'verified' },
          tool: { before: null, after: 'delete_portal_user' },
          target: { before: null, after: 'portal_user pu-1' },
          policy_version: { before: null, after: 3 },
          expires_at: { before: null, after: EXPIRES.toISOString() },
        },
      },
    ]);
  });

  it('consumed: a form answer is confirmed then executed; a page decision only executed', () => {
    expect(actions('consumed', row())).toEqual(['confirmation.confirmed', 'confirmation.executed']);
    expect(actions('consumed', row({ mode: 'verified', verifiedAt: EXPIRES }))).toEqual([
      'confirmation.executed',
    ]);
    expect(eventsOf('consumed', row()).at(-1)?.changes).toEqual({
      status: { before: 'confirmed', after: 'consumed' },
    });
  });

  it('declined in the client, and expired unanswered or confirmed but unused, say why', () => {
    expect(eventsOf('declined', row())).toEqual([
      {
        action: 'confirmation.declined',
        changes: {
          status: { before: 'pending', after: 'declined' },
          reason: { before: null, after: 'declined or cancelled in the client' },
        },
      },
    ]);
    expect(eventsOf('expired', row())[0]?.changes).toMatchObject({
      status: { before: 'pending', after: 'expired' },
      reason: { after: 'not answered before it expired' },
    });
    expect(eventsOf('expired', row({ mode: 'verified', verifiedAt: EXPIRES }))[0]).toMatchObject({
      action: 'confirmation.expired',
      changes: {
        status: { before: 'confirmed', after: 'expired' },
        reason: { after: 'confirmed on the page but not used before it expired' },
      },
    });
  });

  it('no event carries the question, the arguments or their digest', () => {
    for (const change of ['created', 'consumed', 'declined', 'expired'] as const) {
      const text = JSON.stringify(eventsOf(change, row()));
      expect(text).not.toContain('ana@example.com');
      expect(text).not.toContain('d'.repeat(64));
    }
  });

  it('records as the caller (person, token, client), on the confirmation, in the given transaction', async () => {
    const ds = new DataSource({ type: 'postgres', url: 'postgres://x@127.0.0.1:1/x' });
    const audit = new AuditTrail(
      new AuditEventsRepository(ds),
      new RequestContext(new ClsService(new AsyncLocalStorage())),
    );
    const record = vi.spyOn(audit, 'record').mockResolvedValue(undefined);
    const events = new ConfirmationEvents(audit);
    const caller = testMcpCaller(
      { tokenId: 'tok-1', organizationId: 'org-1', userId: 'user-1' },
      { requestId: 'req-9' },
    );
    const tx = ds.manager;
    const r = row();
    await events.by(caller)('consumed', r, tx);
    expect(
      record.mock.calls.map(([t, e, a]) => [t, e.action, e.resourceId, a?.clientName]),
    ).toEqual([
      [tx, 'confirmation.confirmed', r.id, 'Claude Desktop'],
      [tx, 'confirmation.executed', r.id, 'Claude Desktop'],
    ]);
    expect(record.mock.calls[0]?.[1]).toMatchObject({
      resourceType: 'confirmation',
      resourceLabel: confirmationLabel(r),
    });
    expect(record.mock.calls[0]?.[2]).toMatchObject({
      actorUserId: 'user-1',
      tokenId: 'tok-1',
      channel: 'mcp',
      requestId: 'req-9',
      confirmationId: r.id,
    });
  });
});
