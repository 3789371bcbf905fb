import { describe, expect, it } from 'vitest';
import { testApproval } from '@app/testing';
import { toApprovalChain } from './mcp-history.service.js';

const ASKED = new Date('2026-12-04T10:00:00.000Z');
const NOW = new Date('2026-12-04T10:05:00.000Z');

const PENDING = testApproval({ createdAt: ASKED });

const DECIDED = {
  decidedAt: new Date('2026-12-04T10:01:00.000Z'),
  decidedBy: 'max',
  decidedByName: 'Max Member',
  decidedVia: 'console' as const,
  decidedTokenName: null,
  reason: 'ticket 42',
};

describe('toApprovalChain', () => {
  it('a pending request: asked only', () => {
    expect(toApprovalChain(PENDING, null, NOW)).toMatchObject({
      status: 'pending',
      requested: { at: ASKED.toISOString(), user_id: 'olivia', name: 'Olivia Owner' },
      decided: null,
      executed: null,
    });
  });

  it('a denial names the decider, the reason and where it was decided; nothing ran', () => {
    const chain = toApprovalChain({ ...PENDING, ...DECIDED, status: 'denied' }, null, NOW);
    expect(chain.decided).toMatchObject({
      decision: 'denied',
      user_id: 'max',
      name: 'Max Member',
      reason: 'ticket 42',
      via: 'console',
      on: "the admin console's Approvals page",
    });
    expect(chain.executed).toBeNull();
  });

  it('a decision made through the API names the personal token, not the console', () => {
    const chain = toApprovalChain(
      {
        ...PENDING,
        ...DECIDED,
        decidedVia: 'api',
        decidedTokenName: 'release bot',
        status: 'approved',
      },
      null,
      NOW,
    );
    expect(chain.decided).toMatchObject({
      via: 'api',
      on: 'the REST API (POST /v1/mcp/approvals/{id}/approve|deny) with the personal token «release bot»',
    });
  });

  it('a request decided before the server recorded where says so instead of guessing', () => {
    const chain = toApprovalChain(
      { ...PENDING, ...DECIDED, decidedVia: null, status: 'denied' },
      null,
      NOW,
    );
    expect(chain.decided).toMatchObject({ via: null, on: expect.stringContaining('not recorded') });
  });

  it('an executed request stays approved and leads to the call that ran', () => {
    const executedAt = new Date('2026-12-04T10:02:00.000Z');
    const chain = toApprovalChain(
      { ...PENDING, ...DECIDED, status: 'executed', executedAt, executedRequestId: 'req-ran' },
      'call-ran',
      NOW,
    );
    expect(chain.decided?.decision).toBe('approved');
    expect(chain.executed).toEqual({
      at: executedAt.toISOString(),
      request_id: 'req-ran',
      tool_call_id: 'call-ran',
    });
  });

  it('an approved request past its expiry shows expired, its decision kept', () => {
    const lapsed = new Date('2026-12-04T10:20:00.000Z');
    const chain = toApprovalChain({ ...PENDING, ...DECIDED, status: 'approved' }, null, lapsed);
    expect(chain.status).toBe('expired');
    expect(chain.decided?.decision).toBe('approved');
  });
});
