import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';
import { textJsonOf, type Json } from '../support/mcp-peers.js';
import {
  connectConfirmingPeer,
  type ConfirmingPeerKind,
} from '../support/mcp-confirmation-fixtures.js';
import {
  auditEvents,
  createPortalUser,
  portalUserStatus,
  requireApproval,
} from '../support/confirmation-records.js';

/**
 * Four-eyes approval (policy `approval`) through the official SDK clients, v2 on 2026-07-28 and
 * on 2025-06-18, and v1 (2025-11-25): the agent's delete answers `approval_pending` without any
 * elicitation, another admin approves it over REST, and the same call from the same client then
 * deletes the portal user once; a denial reaches the client as `approval_denied` with the reason.
 */

let t: TestServer;
let mcpUrl: string;

beforeAll(async () => {
  t = await startTestServer();
  mcpUrl = `${t.url}/mcp`;
  await requireApproval(t, 'delete_portal_user');
});
afterAll(() => t?.close());

function errorOf(result: Json): Json {
  expect(result.isError).toBe(true);
  return textJsonOf(result).error;
}

async function decide(id: string, verb: 'approve' | 'deny', reason: string): Promise<Json> {
  const res = await t.request(`/v1/mcp/approvals/${id}/${verb}`, {
    method: 'POST',
    token: 'member',
    json: { reason },
  });
  expect(res.status).toBe(200);
  return res.json();
}

const KINDS: ConfirmingPeerKind[] = ['v2-2026-07-28', 'v2-2025-06-18', 'v1'];

describe.each(KINDS)('%s client', (kind) => {
  it('approval_pending, approved by another admin, the same call then deletes once', async () => {
    const target = await createPortalUser(t, `Approved ${kind}`);
    const peer = await connectConfirmingPeer(kind, mcpUrl, t.tokens.owner, () => {
      throw new Error('an approval asks the client nothing');
    });
    try {
      const first = errorOf(await peer.callTool('delete_portal_user', { id: target.id }));
      expect(first.code).toBe('approval_pending');
      const id: string = first.details.approval_id;
      expect(first.message).toContain(`request ${id}`);
      expect(first.message).toContain('other than Olivia Owner');
      expect(await portalUserStatus(t, target.id)).toBe(200);

      expect(await decide(id, 'approve', 'ok')).toMatchObject({ status: 'approved' });
      const done: Json = await peer.callTool('delete_portal_user', { id: target.id });
      expect(done.isError).not.toBe(true);
      expect(await portalUserStatus(t, target.id)).toBe(404);
      expect(peer.asked).toEqual([]);
      const deleted = await auditEvents(t, {
        action: 'portal_user.deleted',
        resource_id: target.id,
      });
      expect(deleted).toHaveLength(1);
    } finally {
      await peer.close();
    }
  });

  it('a denial reaches the client as approval_denied with the reason; nothing is deleted', async () => {
    const target = await createPortalUser(t, `Denied ${kind}`);
    const peer = await connectConfirmingPeer(kind, mcpUrl, t.tokens.owner, () => {
      throw new Error('an approval asks the client nothing');
    });
    try {
      const first = errorOf(await peer.callTool('delete_portal_user', { id: target.id }));
      await decide(first.details.approval_id, 'deny', 'keep until the renewal');
      const told = errorOf(await peer.callTool('delete_portal_user', { id: target.id }));
      expect(told.code).toBe('approval_denied');
      expect(told.message).toContain('keep until the renewal');
      expect(await portalUserStatus(t, target.id)).toBe(200);
    } finally {
      await peer.close();
    }
  });
});
