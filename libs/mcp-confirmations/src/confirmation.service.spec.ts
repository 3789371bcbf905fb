import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { ClsService } from 'nestjs-cls';
import { DataSource } from 'typeorm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuditEventsRepository, AuditTrail } from '@app/audit-trail';
import { argumentsDigest } from '@app/common';
import { RequestContext, type CallerContext } from '@app/identity';
import { testMcpCaller } from '@app/testing';
import { ConfirmationEvents } from './confirmation-events.js';
import type { ConfirmationBinding } from './confirmation.binding.js';
import { ConfirmationLedger } from './confirmation.ledger.js';
import type { LedgerInspection } from './confirmation-ledger.types.js';
import {
  ConfirmationService,
  type RedeemBinding,
  type RedeemOutcome,
} from './confirmation.service.js';
import { ConfirmationUnavailableError } from './confirmation-unavailable.error.js';
import { McpConfirmation } from './mcp-confirmation.js';
import { RequestStateCodec } from './request-state.codec.js';

const KEY = 'unit-test-confirmation-key-0123456789abcdef';
const NOW = new Date('2026-03-01T12:00:00.000Z');

function row(over: Partial<McpConfirmation> = {}): McpConfirmation {
  return {
    id: randomUUID(),
    organizationId: randomUUID(),
    tokenId: randomUUID(),
    userId: randomUUID(),
    tool: 'delete_portal_user',
    argumentsDigest: argumentsDigest({ id: 'pu-1' }),
    targetType: 'portal_user',
    targetId: 'pu-1',
    message: 'Delete portal user Ana?',
    status: 'pending',
    protocolVersion: '2026-07-28',
    clientName: null,
    createdAt: NOW,
    expiresAt: new Date(NOW.getTime() + 600_500),
    decidedAt: null,
    toolCallId: null,
    requestId: 'req-1',
    mode: 'form',
    policyVersion: 0,
    verifiedAt: null,
    ...over,
  };
}

/**
 * A real ledger over a DataSource that was never connected: any call that is not stubbed fails,
 * and the spies prove which ones were made.
 */
function setup() {
  const ds = new DataSource({ type: 'postgres', url: 'postgres://x@127.0.0.1:1/x' });
  const ledger = new ConfirmationLedger(ds);
  const spies = {
    create: vi.spyOn(ledger, 'create'),
    consume: vi.spyOn(ledger, 'consume'),
    decline: vi.spyOn(ledger, 'decline'),
    inspect: vi.spyOn(ledger, 'inspect'),
    expire: vi.spyOn(ledger, 'expire'),
  };
  // The ledger is stubbed, so no change is made and nothing is recorded.
  const events = new ConfirmationEvents(
    new AuditTrail(
      new AuditEventsRepository(ds),
      new RequestContext(new ClsService(new AsyncLocalStorage())),
    ),
  );
  const service = new ConfirmationService(ledger, new RequestStateCodec([KEY]), events);
  return { service, spies, ledger, events };
}

/** The call presenting a state (only its audit events' actor; the binding is the fields beside it). */
function callerOf(r: McpConfirmation): CallerContext {
  const { tokenId, organizationId, userId, requestId } = r;
  return testMcpCaller({ tokenId, organizationId, userId }, { requestId });
}

async function asked(s: ReturnType<typeof setup>, r = row(), args: unknown = { id: 'pu-1' }) {
  s.spies.create.mockResolvedValueOnce(r);
  const result = await s.service.ask({
    organizationId: r.organizationId,
    tokenId: r.tokenId,
    userId: r.userId,
    tool: r.tool,
    args,
    targetType: r.targetType,
    targetId: r.targetId,
    message: r.message,
    protocolVersion: r.protocolVersion,
    clientName: undefined,
    requestId: r.requestId,
    policy: { version: 2, expirySeconds: 600 },
    caller: callerOf(r),
  });
  const binding: RedeemBinding = {
    organizationId: r.organizationId,
    tokenId: r.tokenId,
    userId: r.userId,
    tool: r.tool,
    args,
    policyVersion: 2,
    caller: callerOf(r),
  };
  const bound: ConfirmationBinding = {
    organizationId: r.organizationId,
    tokenId: r.tokenId,
    userId: r.userId,
    tool: r.tool,
    argumentsDigest: r.argumentsDigest,
  };
  return { result, binding, bound, row: r };
}

function untouched(spies: ReturnType<typeof setup>['spies']): void {
  expect(spies.consume).not.toHaveBeenCalled();
  expect(spies.decline).not.toHaveBeenCalled();
  expect(spies.inspect).not.toHaveBeenCalled();
  expect(spies.expire).not.toHaveBeenCalled();
}

describe('ConfirmationService (ledger stubbed)', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('ask records the digest and TTL, and signs a state whose claims match the row', async () => {
    const s = setup();
    const { result, row: r } = await asked(s);
    expect(s.spies.create).toHaveBeenCalledWith(
      expect.objectContaining({
        argumentsDigest: argumentsDigest({ id: 'pu-1' }),
        ttlSeconds: 600,
        clientName: null,
      }),
      expect.any(Function),
    );
    expect(result).toMatchObject({ confirmationId: r.id, expiresAt: r.expiresAt });
    const verdict = new RequestStateCodec([KEY]).verify(result.requestState);
    expect(verdict).toEqual({
      ok: true,
      claims: {
        confirmationId: r.id,
        organizationId: r.organizationId,
        tokenId: r.tokenId,
        userId: r.userId,
        tool: r.tool,
        argumentsDigest: r.argumentsDigest,
        // Rounded up so the state never lapses before its row.
        expiresAtUnix: Math.ceil(r.expiresAt.getTime() / 1000),
        policyVersion: 2,
      },
    });
  });

  it('a bad MAC or a malformed state is tampered, and the ledger is not touched', async () => {
    const s = setup();
    const { result, binding } = await asked(s);
    // One bit of the MAC flipped, in a character all of whose bits count (the last one of
    // unpadded base64url carries padding bits): a forgery that always differs from the original.
    const state = result.requestState;
    const at = state.length - 3;
    const forged = `${state.slice(0, at)}${state[at] === 'A' ? 'B' : 'A'}${state.slice(at + 1)}`;
    expect(forged).not.toBe(state);
    expect(await s.service.redeem(forged, binding, 'accept')).toEqual({
      kind: 'tampered',
      reason: 'bad_mac',
    });
    expect(await s.service.redeem('garbage', binding, 'accept')).toEqual({
      kind: 'tampered',
      reason: 'malformed',
    });
    expect(await s.service.inspect(forged, binding)).toEqual({
      kind: 'tampered',
      reason: 'bad_mac',
    });
    const foreign = new ConfirmationService(
      s.ledger,
      new RequestStateCodec(['another-deployment-key-0123456789abcdef']),
      s.events,
    );
    expect(await foreign.redeem(result.requestState, binding, 'decline')).toEqual({
      kind: 'tampered',
      reason: 'bad_mac',
    });
    untouched(s.spies);
  });

  it.each([
    ['organizationId', randomUUID(), 'other_organization'],
    ['tokenId', randomUUID(), 'other_token'],
    ['userId', randomUUID(), 'other_user'],
    ['tool', 'delete_account', 'other_tool'],
    ['args', { id: 'pu-2' }, 'other_arguments'],
  ] as const)(
    'another %s is tampered (%s), checked before the ledger',
    async (field, value, reason) => {
      const s = setup();
      const { result, binding } = await asked(s);
      const other = { ...binding, [field]: value };
      expect(await s.service.redeem(result.requestState, other, 'accept')).toEqual({
        kind: 'tampered',
        reason,
      });
      expect(await s.service.inspect(result.requestState, other)).toEqual({
        kind: 'tampered',
        reason,
      });
      untouched(s.spies);
    },
  );

  it('a state asked under another policy version is superseded, checked before the ledger', async () => {
    const s = setup();
    const { result, binding } = await asked(s);
    const changed = { ...binding, policyVersion: 3 };
    const superseded = { kind: 'superseded', confirmationId: expect.any(String) };
    expect(await s.service.redeem(result.requestState, changed, 'accept')).toEqual(superseded);
    expect(await s.service.inspect(result.requestState, changed)).toEqual(superseded);
    untouched(s.spies);
  });

  it('the same arguments in another key order are the same call', async () => {
    const s = setup();
    const args = { id: 'pu-1', hard: true };
    const r = row({ argumentsDigest: argumentsDigest(args) });
    const { result, binding } = await asked(s, r, args);
    s.spies.consume.mockResolvedValueOnce({ outcome: 'consumed', confirmation: r });
    const reordered = { ...binding, args: { hard: true, id: 'pu-1' } };
    expect(await s.service.redeem(result.requestState, reordered, 'accept')).toEqual({
      kind: 'consumed',
      confirmationId: r.id,
    });
  });

  it('a state past its exp is expired without consuming; closing the row is best effort', async () => {
    const s = setup();
    const { result, binding, bound, row: r } = await asked(s);
    vi.setSystemTime(new Date(r.expiresAt.getTime() + 1_000));
    s.spies.expire.mockRejectedValueOnce(new Error('connection refused'));
    expect(await s.service.redeem(result.requestState, binding, 'accept')).toEqual({
      kind: 'expired',
      confirmationId: r.id,
    });
    expect(s.spies.expire).toHaveBeenCalledWith(r.id, bound, expect.any(Function));
    s.spies.expire.mockResolvedValueOnce(true);
    expect(await s.service.inspect(result.requestState, binding)).toEqual({
      kind: 'expired',
      confirmationId: r.id,
    });
    expect(s.spies.consume).not.toHaveBeenCalled();
    expect(s.spies.decline).not.toHaveBeenCalled();
    expect(s.spies.inspect).not.toHaveBeenCalled();
  });

  it('maps each ledger outcome; accept consumes, decline declines, with the claims as binding', async () => {
    const s = setup();
    const { result, binding, bound, row: r } = await asked(s);
    const state = result.requestState;
    const id = r.id;

    s.spies.consume.mockResolvedValueOnce({ outcome: 'consumed', confirmation: r });
    expect(await s.service.redeem(state, binding, 'accept')).toEqual({
      kind: 'consumed',
      confirmationId: id,
    });
    expect(s.spies.consume).toHaveBeenCalledWith(id, bound, expect.any(Function));
    expect(s.spies.decline).not.toHaveBeenCalled();

    s.spies.decline.mockResolvedValueOnce({ outcome: 'declined', confirmation: r });
    expect(await s.service.redeem(state, binding, 'decline')).toEqual({
      kind: 'declined',
      confirmationId: id,
    });
    expect(s.spies.decline).toHaveBeenCalledWith(id, bound, expect.any(Function));

    // What each ledger outcome becomes, accepted (consume) and inspected without an answer.
    const accepted: Array<[LedgerInspection, RedeemOutcome]> = [
      [
        { outcome: 'replayed', confirmation: r },
        { kind: 'replayed', confirmationId: id },
      ],
      [
        { outcome: 'expired', confirmation: r },
        { kind: 'expired', confirmationId: id },
      ],
      [{ outcome: 'missing' }, { kind: 'expired', confirmationId: id }],
      [
        { outcome: 'pending', confirmation: r },
        { kind: 'expired', confirmationId: id },
      ],
      [
        { outcome: 'mismatch', confirmation: r },
        { kind: 'tampered', reason: 'ledger_mismatch' },
      ],
    ];
    for (const [ledger, expected] of accepted) {
      s.spies.consume.mockResolvedValueOnce(ledger);
      expect(await s.service.redeem(state, binding, 'accept'), ledger.outcome).toEqual(expected);
    }
    const inspected: Array<[LedgerInspection, RedeemOutcome]> = [
      [
        { outcome: 'pending', confirmation: r },
        { kind: 'pending', confirmationId: id },
      ],
      [
        { outcome: 'replayed', confirmation: r },
        { kind: 'replayed', confirmationId: id },
      ],
      [
        { outcome: 'mismatch', confirmation: r },
        { kind: 'tampered', reason: 'ledger_mismatch' },
      ],
    ];
    for (const [ledger, expected] of inspected) {
      s.spies.inspect.mockResolvedValueOnce(ledger);
      expect(await s.service.inspect(state, binding), ledger.outcome).toEqual(expected);
    }
  });

  it('any ledger failure becomes ConfirmationUnavailableError (code confirmation_unavailable, cause kept)', async () => {
    const s = setup();
    const { result, binding } = await asked(s);
    const down = new Error('connect ECONNREFUSED 127.0.0.1:5432');
    s.spies.consume.mockRejectedValueOnce(down);
    s.spies.decline.mockRejectedValueOnce(down);
    s.spies.inspect.mockRejectedValueOnce(down);
    s.spies.create.mockRejectedValueOnce(down);

    const redeemed = s.service.redeem(result.requestState, binding, 'accept');
    await expect(redeemed).rejects.toBeInstanceOf(ConfirmationUnavailableError);
    await expect(redeemed).rejects.toMatchObject({ code: 'confirmation_unavailable', cause: down });
    await expect(s.service.redeem(result.requestState, binding, 'decline')).rejects.toBeInstanceOf(
      ConfirmationUnavailableError,
    );
    await expect(s.service.inspect(result.requestState, binding)).rejects.toBeInstanceOf(
      ConfirmationUnavailableError,
    );
    await expect(asked(s, row())).rejects.toBeInstanceOf(ConfirmationUnavailableError);
  });
});
