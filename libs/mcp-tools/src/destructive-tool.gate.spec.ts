// oxlint-disable typescript/no-unsafe-type-assertion -- test doubles stand in for the Nest providers the gate receives
import { Logger } from '@nestjs/common';
import { describe, expect, it, vi } from 'vitest';
import { ROLE_PERMISSIONS } from '@app/access-vocabulary';
import type { ApprovalCall, ApprovalOutcome, ApprovalRequests } from '@app/approvals';
import type { ConfirmationPolicyReader, ConfirmationPolicy } from '@app/confirmation-policies';
import type { CallerContext } from '@app/identity';
import {
  ConfirmationUnavailableError,
  type AskInput,
  type ConfirmationService,
  type RedeemOutcome,
  type VerifiedCallOutcome,
  type VerifiedConfirmationService,
  type VerifiedRedeemOutcome,
} from '@app/mcp-confirmations';
import type { MetricsService } from '@app/metrics';
import { McpError, type McpRequestContext } from '@app/mcp-transport';
import { testApproval, testPrincipal, testRequestContext } from '@app/testing';
import { DestructiveToolGate } from './destructive-tool.gate.js';
import type { GateDecision } from './gate-decision.js';
import type { RestDispatcher, RestResponse } from './rest-dispatcher.js';
import { ToolCatalog } from './tool-catalog.js';

const USER_ID = '6f1c2a8e-0d7b-4c39-9a51-1b2e3c4d5e6f';
const catalog = new ToolCatalog();
const tool = catalog.get('delete_portal_user')!;
const spec = tool.def.confirmation!;
const args = { id: USER_ID };

const caller: CallerContext = {
  principal: testPrincipal({
    scopes: ['portal_users:write'],
    membership: { id: 'm1', status: 'active', role: 'owner', permissions: ROLE_PERMISSIONS.owner },
  }),
  channel: 'mcp',
  clientName: 'client',
  confirmationId: null,
  requestId: 'req-1',
};

function ctx(
  era: 'legacy' | 'modern' = 'modern',
  clientCapabilities: Record<string, unknown> = { elicitation: {} },
  protocolVersion?: string,
): McpRequestContext {
  return testRequestContext({
    era,
    clientCapabilities,
    ...(protocolVersion === undefined ? {} : { protocolVersion }),
  });
}

const RECORD = { id: USER_ID, name: 'Pat\u0007 Doe', email: 'pat@acme.test' };

function setup(
  opts: {
    lookup?: RestResponse;
    redeem?: RedeemOutcome | Error;
    inspect?: RedeemOutcome;
    ask?: Error;
    policy?: Partial<ConfirmationPolicy> | Error;
    approval?: ApprovalOutcome | Error;
    verifiedRedeem?: VerifiedRedeemOutcome;
    verifiedCall?: VerifiedCallOutcome;
  } = {},
) {
  const policyFor = vi.fn<ConfirmationPolicyReader['policyFor']>((_org, name) =>
    opts.policy instanceof Error
      ? Promise.reject(opts.policy)
      : Promise.resolve({
          tool: name,
          mode: 'form',
          expirySeconds: 600,
          version: 0,
          id: null,
          updatedAt: null,
          updatedBy: null,
          ...opts.policy,
        }),
  );
  const asked: AskInput[] = [];
  const ask = vi.fn<ConfirmationService['ask']>((input: AskInput) => {
    if (opts.ask !== undefined) return Promise.reject(opts.ask);
    asked.push(input);
    return Promise.resolve({
      confirmationId: 'conf-new',
      requestState: 'state-new',
      expiresAt: new Date(),
    });
  });
  const redeem = vi.fn<ConfirmationService['redeem']>(() => {
    const r = opts.redeem;
    if (r instanceof Error) return Promise.reject(r);
    if (r === undefined || r.kind === 'pending') throw new Error('no redeem answer set');
    return Promise.resolve(r);
  });
  const inspect = vi.fn<ConfirmationService['inspect']>(() => {
    const r = opts.inspect;
    if (r === undefined || r.kind === 'consumed' || r.kind === 'declined')
      throw new Error('no inspect answer set');
    return Promise.resolve(r);
  });
  const lookups: string[] = [];
  const dispatch = vi.fn<RestDispatcher['dispatch']>((_c, contract, input) => {
    lookups.push(
      `${contract.method} ${contract.path.replace(':id', typeof input?.params?.id === 'string' ? input.params.id : '')}`,
    );
    return Promise.resolve(
      opts.lookup ?? { status: 200, body: RECORD, text: JSON.stringify(RECORD) },
    );
  });
  const recorded: string[] = [];
  const recordConfirmation = vi.fn<MetricsService['recordConfirmation']>((o) => {
    recorded.push(o);
  });
  const approvalCalls: ApprovalCall[] = [];
  const forCall = vi.fn<ApprovalRequests['forCall']>((call) => {
    approvalCalls.push(call);
    const a = opts.approval;
    if (a === undefined) throw new Error('no approval answer set');
    return a instanceof Error ? Promise.reject(a) : Promise.resolve(a);
  });
  const verifiedAsked: AskInput[] = [];
  const verified = {
    ask: vi.fn<VerifiedConfirmationService['ask']>((input: AskInput) => {
      verifiedAsked.push(input);
      return Promise.resolve({
        confirmationId: 'conf-page',
        requestState: 'state-page',
        expiresAt: new Date(),
        url: 'https://mcp.example/confirm/conf-page',
      });
    }),
    redeem: vi.fn<VerifiedConfirmationService['redeem']>(() => {
      if (opts.verifiedRedeem === undefined) throw new Error('no verified redeem answer set');
      return Promise.resolve(opts.verifiedRedeem);
    }),
    forCall: vi.fn<VerifiedConfirmationService['forCall']>(() =>
      Promise.resolve(opts.verifiedCall ?? { kind: 'none' }),
    ),
  };
  const gate = new DestructiveToolGate(
    { ask, redeem, inspect } as unknown as ConfirmationService,
    { forCall } as unknown as ApprovalRequests,
    { policyFor } as unknown as ConfirmationPolicyReader,
    { dispatch } as unknown as RestDispatcher,
    { recordConfirmation } as unknown as MetricsService,
    verified as unknown as VerifiedConfirmationService,
  );
  const check = (params: Record<string, unknown>, c = ctx()): Promise<GateDecision> =>
    gate.check(tool, spec, args, params, c, caller);
  return {
    gate,
    check,
    asked,
    lookups,
    recorded,
    redeem,
    inspect,
    approvalCalls,
    verified,
    verifiedAsked,
  };
}

describe('DestructiveToolGate', () => {
  describe('write tools (a policy only if the organisation set one)', () => {
    const update = catalog.get('update_portal_user')!;
    const change = { id: USER_ID, name: 'Pat Lima' };
    const checkUpdate = (s: { gate: DestructiveToolGate }): Promise<GateDecision> =>
      s.gate.check(update, update.def.confirmation!, change, {}, ctx(), caller);

    it('none (the default): runs at once, nothing read, asked or counted', async () => {
      const s = setup({ policy: { mode: 'none' } });
      const decision = await checkUpdate(s);
      expect(decision).toEqual({ kind: 'proceed', confirmationId: null });
      expect(s.lookups).toEqual([]);
      expect(s.asked).toEqual([]);
      expect(s.recorded).toEqual([]);
    });

    it('form: asks, naming the record and what the call changes', async () => {
      const s = setup({ policy: { mode: 'form', version: 2 } });
      const decision = await checkUpdate(s);
      expect(decision).toMatchObject({ kind: 'input_required', confirmationId: 'conf-new' });
      expect(s.lookups).toEqual([`GET /v1/portal-users/${USER_ID}`]);
      expect(s.asked[0]).toMatchObject({
        tool: 'update_portal_user',
        targetType: 'portal_user',
        targetId: USER_ID,
        message: 'Change portal user Pat Doe <pat@acme.test>: name → Pat Lima?',
        policy: { version: 2 },
      });
    });

    it('a create tool asks about its arguments (no record to read); its target is new', async () => {
      const create = catalog.get('create_account')!;
      const s = setup({ policy: { mode: 'form' } });
      await s.gate.check(create, create.def.confirmation!, { name: 'Initech' }, {}, ctx(), caller);
      expect(s.lookups).toEqual([]);
      expect(s.asked[0]).toMatchObject({
        targetType: 'account',
        targetId: 'new',
        message: 'Create account Initech?',
      });
    });

    it('the database away before the policy is read: the endpoint’s SERVICE_UNAVAILABLE with retry_after_seconds; any other failure: confirmation_unavailable', async () => {
      const warn = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      try {
        const away = setup({ policy: new Error('Connection terminated unexpectedly') });
        expect(await checkUpdate(away)).toMatchObject({
          kind: 'refused',
          envelope: {
            error: { code: 'SERVICE_UNAVAILABLE', details: { retry_after_seconds: 5 } },
          },
        });
        const broken = setup({ policy: new Error('relation does not exist') });
        expect(await checkUpdate(broken)).toMatchObject({
          kind: 'refused',
          envelope: { error: { code: 'confirmation_unavailable' } },
        });
        expect(away.lookups).toEqual([]);
        expect(away.asked).toEqual([]);
      } finally {
        warn.mockRestore();
      }
    });
  });

  it('a destructive tool is never let through by none (a row written around the API): it asks as under form', async () => {
    const s = setup({ policy: { mode: 'none' } });
    const decision = await s.check({});
    expect(decision).toMatchObject({ kind: 'input_required' });
    expect(s.asked).toHaveLength(1);
  });

  it('a 2025 client, or one without form elicitation, gets confirmation_required and nothing is recorded', async () => {
    for (const c of [
      ctx('legacy'),
      ctx('modern', {}),
      ctx('modern', { elicitation: { url: {} } }),
    ]) {
      const s = setup();
      const decision = await s.check({}, c);
      expect(decision).toMatchObject({
        kind: 'refused',
        envelope: { error: { code: 'confirmation_required' } },
      });
      expect(s.asked).toHaveLength(0);
      expect(s.lookups).toHaveLength(0);
    }
  });

  it('asks with a question naming the record (control characters removed) and binds it to the call', async () => {
    const s = setup();
    const decision = await s.check({});
    expect(s.lookups).toEqual([`GET /v1/portal-users/${USER_ID}`]);
    expect(decision).toMatchObject({
      kind: 'input_required',
      confirmationId: 'conf-new',
      requestState: 'state-new',
      inputRequests: { confirm: { method: 'elicitation/create', params: { mode: 'form' } } },
    });
    expect(s.asked[0]).toMatchObject({
      tool: 'delete_portal_user',
      args,
      targetType: 'portal_user',
      targetId: USER_ID,
      organizationId: caller.principal.organizationId,
      clientName: 'client',
    });
    expect(s.asked[0]?.message).toBe(
      'Delete portal user Pat Doe <pat@acme.test>? This cannot be undone.',
    );
    expect(s.recorded).toEqual(['asked']);
  });

  it('a target the API cannot find is its own 404 envelope; nothing is asked', async () => {
    const envelope = { error: { code: 'NOT_FOUND', message: 'Portal user not found' } };
    const s = setup({ lookup: { status: 404, body: envelope } });
    expect(await s.check({})).toEqual({ kind: 'refused', confirmationId: null, envelope });
    expect(s.asked).toHaveLength(0);
  });

  it('an accepted answer lets the call proceed without reading the target again', async () => {
    const s = setup({ redeem: { kind: 'consumed', confirmationId: 'conf-1' } });
    const decision = await s.check({
      requestState: 'state',
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
    });
    expect(decision).toEqual({ kind: 'proceed', confirmationId: 'conf-1' });
    expect(s.lookups).toHaveLength(0);
    expect(s.recorded).toEqual(['consumed']);
  });

  it('declined, replayed and tampered answers never proceed', async () => {
    const answer = { confirm: { action: 'accept', content: { confirm: true } } };
    const declined = setup({ redeem: { kind: 'declined', confirmationId: 'c' } });
    expect(await declined.check({ requestState: 's', inputResponses: answer })).toMatchObject({
      kind: 'refused',
      envelope: { error: { code: 'USER_DECLINED' } },
    });
    const replayed = setup({ redeem: { kind: 'replayed', confirmationId: 'c' } });
    expect(await replayed.check({ requestState: 's', inputResponses: answer })).toMatchObject({
      kind: 'refused',
      envelope: { error: { code: 'confirmation_replayed' } },
    });
    const tampered = setup({ redeem: { kind: 'tampered', reason: 'bad_mac' } });
    await expect(
      tampered.check({ requestState: 's', inputResponses: answer }),
    ).rejects.toBeInstanceOf(McpError);
    expect(tampered.recorded).toEqual(['tampered']);
  });

  it('an expired confirmation, or a missing answer, is asked again', async () => {
    const expired = setup({
      redeem: { kind: 'expired', confirmationId: 'old' },
    });
    expect(
      await expired.check({
        requestState: 's',
        inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
      }),
    ).toMatchObject({ kind: 'input_required', confirmationId: 'conf-new' });
    const missing = setup({ inspect: { kind: 'pending', confirmationId: 'c' } });
    expect(await missing.check({ requestState: 's' })).toMatchObject({
      kind: 'input_required',
    });
    expect(missing.redeem).not.toHaveBeenCalled();
  });

  it('malformed requestState or inputResponses are invalid params', async () => {
    const s = setup();
    await expect(s.check({ requestState: 42 })).rejects.toBeInstanceOf(McpError);
    await expect(s.check({ requestState: 's', inputResponses: [] })).rejects.toBeInstanceOf(
      McpError,
    );
  });

  it('an unavailable confirmation store refuses the call (confirmation_unavailable); nothing runs', async () => {
    const logged = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const s = setup({ redeem: new ConfirmationUnavailableError(new Error('down')) });
    const decision = await s.check({
      requestState: 's',
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
    });
    expect(decision).toMatchObject({
      kind: 'refused',
      envelope: { error: { code: 'confirmation_unavailable' } },
    });
    expect(s.recorded).toEqual(['refused_unavailable']);
    expect(logged).toHaveBeenCalledOnce();
    logged.mockRestore();
  });

  it('a first call whose target cannot be read (database unavailable, 503) is confirmation_unavailable, not an internal error', async () => {
    const logged = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const envelope = {
      error: { code: 'SERVICE_UNAVAILABLE', message: 'down', details: { retry_after_seconds: 5 } },
    };
    const s = setup({ lookup: { status: 503, body: envelope, text: JSON.stringify(envelope) } });
    const decision = await s.check({});
    expect(decision).toMatchObject({
      kind: 'refused',
      envelope: { error: { code: 'confirmation_unavailable' } },
    });
    expect(s.asked).toHaveLength(0);
    expect(s.recorded).toEqual(['refused_unavailable']);
    expect(logged).toHaveBeenCalledOnce();
    logged.mockRestore();
  });

  it('asks under the policy in force: its version and expiry go with the question', async () => {
    const s = setup({ policy: { version: 4, expirySeconds: 120 } });
    expect(await s.check({})).toMatchObject({ kind: 'input_required' });
    expect(s.asked[0]?.policy).toEqual({ version: 4, expirySeconds: 120 });
  });

  it('the answer is redeemed against the policy version in force now', async () => {
    const s = setup({
      policy: { version: 7 },
      redeem: { kind: 'consumed', confirmationId: 'conf-1' },
    });
    await s.check({
      requestState: 'state',
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
    });
    expect(s.redeem.mock.calls[0]?.[1]).toMatchObject({ policyVersion: 7 });
  });

  it('an answer given under another policy version decides nothing: asked again, nothing runs', async () => {
    const s = setup({ redeem: { kind: 'superseded', confirmationId: 'old' } });
    const decision = await s.check({
      requestState: 's',
      inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
    });
    expect(decision).toMatchObject({ kind: 'input_required', confirmationId: 'conf-new' });
    expect(s.recorded).toEqual(['superseded', 'asked']);
  });

  it.each(['verified'] as const)(
    'a %s policy this client cannot satisfy is confirmation_required naming the mode; nothing is asked or redeemed',
    async (mode) => {
      const s = setup({ policy: { mode, version: 2 } });
      for (const params of [
        {},
        {
          requestState: 's',
          inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
        },
      ]) {
        const decision = await s.check(params);
        expect(decision).toMatchObject({
          kind: 'refused',
          envelope: { error: { code: 'confirmation_required' } },
        });
        const message = decision.kind === 'refused' ? decision.envelope.error.message : '';
        expect(message).toContain(`mode "${mode}"`);
      }
      expect(s.asked).toHaveLength(0);
      expect(s.redeem).not.toHaveBeenCalled();
      expect(s.inspect).not.toHaveBeenCalled();
    },
  );

  describe('verified (the person confirms on this server’s page)', () => {
    const URL_CLIENT = { elicitation: { url: {} } };
    const PAGE = 'https://mcp.example/confirm/conf-page';

    it('2026-07-28 with elicitation.url: a URL-mode input_required (no elicitationId), nothing runs', async () => {
      const s = setup({ policy: { mode: 'verified', version: 3, expirySeconds: 120 } });
      const decision = await s.check({}, ctx('modern', URL_CLIENT));
      expect(decision).toEqual({
        kind: 'input_required',
        confirmationId: 'conf-page',
        requestState: 'state-page',
        inputRequests: {
          confirm: {
            method: 'elicitation/create',
            params: {
              mode: 'url',
              message: expect.stringContaining('Pat Doe') as unknown,
              url: PAGE,
            },
          },
        },
      });
      expect(s.verifiedAsked).toHaveLength(1);
      expect(s.verifiedAsked[0]?.policy).toEqual({ version: 3, expirySeconds: 120 });
      expect(s.asked).toHaveLength(0);
      expect(s.recorded).toEqual(['asked']);
    });

    it('the retry: consumed → proceed; pending → the same page and state again; declined/replayed refuse', async () => {
      const consumed = setup({
        policy: { mode: 'verified' },
        verifiedRedeem: { kind: 'consumed', confirmationId: 'c1' },
      });
      const retry = {
        requestState: 'state-page',
        inputResponses: { confirm: { action: 'accept' } },
      };
      expect(await consumed.check(retry, ctx('modern', URL_CLIENT))).toEqual({
        kind: 'proceed',
        confirmationId: 'c1',
      });
      expect(consumed.verified.redeem).toHaveBeenCalledWith(
        'state-page',
        expect.objectContaining({ tool: 'delete_portal_user', policyVersion: 0 }),
        false,
      );

      const pending = setup({
        policy: { mode: 'verified' },
        verifiedRedeem: { kind: 'pending', confirmationId: 'c2', message: 'Delete?', url: PAGE },
      });
      expect(await pending.check(retry, ctx('modern', URL_CLIENT))).toMatchObject({
        kind: 'input_required',
        confirmationId: 'c2',
        requestState: 'state-page',
        inputRequests: { confirm: { params: { mode: 'url', url: PAGE } } },
      });
      expect(pending.verifiedAsked).toHaveLength(0);

      for (const [outcome, code] of [
        ['declined', 'USER_DECLINED'],
        ['replayed', 'confirmation_replayed'],
      ] as const) {
        const s = setup({
          policy: { mode: 'verified' },
          verifiedRedeem: { kind: outcome, confirmationId: 'c3' },
        });
        expect(await s.check(retry, ctx('modern', URL_CLIENT))).toMatchObject({
          kind: 'refused',
          envelope: { error: { code } },
        });
      }
    });

    it('the client’s decline is passed on; a tampered state is a JSON-RPC -32602', async () => {
      const s = setup({
        policy: { mode: 'verified' },
        verifiedRedeem: { kind: 'tampered', reason: 'bad_mac' },
      });
      const call = s.check(
        { requestState: 'x', inputResponses: { confirm: { action: 'cancel' } } },
        ctx('modern', URL_CLIENT),
      );
      await expect(call).rejects.toBeInstanceOf(McpError);
      expect(s.verified.redeem).toHaveBeenCalledWith('x', expect.anything(), true);
    });

    it('2025-11-25 with elicitation.url: URLElicitationRequiredError (-32042) naming the page; a confirmed call proceeds', async () => {
      const s = setup({ policy: { mode: 'verified' } });
      const decision = await s.check({}, ctx('legacy', URL_CLIENT, '2025-11-25'));
      expect(decision.kind).toBe('rpc_error');
      const error = decision.kind === 'rpc_error' ? decision.error : undefined;
      expect(error?.code).toBe(-32042);
      expect(error?.data).toEqual({
        elicitations: [
          {
            mode: 'url',
            elicitationId: 'conf-page',
            url: PAGE,
            message: expect.stringContaining('Pat Doe') as unknown,
          },
        ],
      });
      const done = setup({
        policy: { mode: 'verified' },
        verifiedCall: { kind: 'consumed', confirmationId: 'c9' },
      });
      expect(await done.check({}, ctx('legacy', URL_CLIENT, '2025-11-25'))).toEqual({
        kind: 'proceed',
        confirmationId: 'c9',
      });
      expect(done.verifiedAsked).toHaveLength(0);
      const again = setup({
        policy: { mode: 'verified' },
        verifiedCall: { kind: 'replayed', confirmationId: 'c9' },
      });
      expect(await again.check({}, ctx('legacy', URL_CLIENT, '2025-11-25'))).toMatchObject({
        kind: 'refused',
        confirmationId: 'c9',
        envelope: { error: { code: 'confirmation_replayed' } },
      });
      expect(again.verifiedAsked).toHaveLength(0);
    });

    it('clients that cannot open a URL for the person get confirmation_required naming the mode', async () => {
      for (const c of [
        ctx('modern', { elicitation: { form: {} } }),
        ctx('legacy', URL_CLIENT, '2025-06-18'),
        ctx('legacy', {}, '2025-11-25'),
      ]) {
        const s = setup({ policy: { mode: 'verified' } });
        const decision = await s.check({}, c);
        expect(decision).toMatchObject({
          kind: 'refused',
          envelope: { error: { code: 'confirmation_required' } },
        });
        const message = decision.kind === 'refused' ? decision.envelope.error.message : '';
        expect(message).toContain('mode "verified"');
        expect(message).toContain('An organisation admin can change the policy');
        expect(s.verifiedAsked).toHaveLength(0);
      }
    });
  });

  it('policies that cannot be read refuse the call (confirmation_unavailable); nothing runs', async () => {
    const logged = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const s = setup({ policy: new Error('database down') });
    expect(await s.check({})).toMatchObject({
      kind: 'refused',
      envelope: { error: { code: 'confirmation_unavailable' } },
    });
    expect(s.asked).toHaveLength(0);
    logged.mockRestore();
  });

  describe('approval policy', () => {
    const APPROVAL = testApproval({
      organizationId: caller.principal.organizationId,
      tokenId: caller.principal.tokenId,
      userId: caller.principal.userId,
      argumentsDigest: 'd'.repeat(64),
      arguments: args,
      targetId: USER_ID,
      clientName: 'client',
      requestId: 'req-0',
      policyVersion: 3,
    });
    const policy = { mode: 'approval' as const, version: 3 };

    it('any client of either era gets approval_pending naming the request and who resolves it; nothing runs', async () => {
      for (const c of [ctx('legacy'), ctx('modern', {}), ctx('modern')]) {
        const s = setup({
          policy,
          approval: { kind: 'pending', approval: APPROVAL, created: true, superseded: false },
        });
        const decision = await s.check({}, c);
        expect(decision).toMatchObject({
          kind: 'refused',
          confirmationId: null,
          // The executor's history row carries it (`approval_id` of the call).
          approvalId: 'appr-1',
          envelope: { error: { code: 'approval_pending', details: { approval_id: 'appr-1' } } },
        });
        const message = decision.kind === 'refused' ? decision.envelope.error.message : '';
        expect(message).toContain('appr-1');
        expect(message).toContain('admin permission other than Olivia Owner');
        expect(s.lookups).toEqual([`GET /v1/portal-users/${USER_ID}`]);
        expect(s.approvalCalls[0]).toMatchObject({
          tool: 'delete_portal_user',
          args,
          targetId: USER_ID,
          message: expect.stringContaining('Pat Doe'),
          policy: { version: 3, expirySeconds: 600 },
        });
        expect(s.asked).toHaveLength(0);
        expect(s.recorded).toEqual(['asked']);
      }
    });

    it('an approved request used by this call proceeds, without a confirmation id', async () => {
      const s = setup({
        policy,
        approval: { kind: 'run', approval: { ...APPROVAL, status: 'executed' } },
      });
      expect(await s.check({})).toEqual({
        kind: 'proceed',
        confirmationId: null,
        approvalId: 'appr-1',
      });
    });

    it('denied, expired and replayed answer their codes (the reason with a denial); nothing runs', async () => {
      const denied = await setup({
        policy,
        approval: {
          kind: 'denied',
          approval: { ...APPROVAL, status: 'denied', decidedByName: 'Max', reason: 'not now' },
        },
      }).check({});
      expect(denied).toMatchObject({
        approvalId: 'appr-1',
        envelope: { error: { code: 'approval_denied' } },
      });
      expect(denied.kind === 'refused' ? denied.envelope.error.message : '').toContain(
        'Max denied request appr-1 for delete_portal_user (reason: not now)',
      );
      const expired = await setup({
        policy,
        approval: { kind: 'expired', approval: { ...APPROVAL, status: 'expired' } },
      }).check({});
      expect(expired).toMatchObject({ envelope: { error: { code: 'approval_expired' } } });
      const replayed = await setup({
        policy,
        approval: { kind: 'replayed', approval: { ...APPROVAL, status: 'approved' } },
      }).check({});
      expect(replayed).toMatchObject({ envelope: { error: { code: 'confirmation_replayed' } } });
    });

    it('a missing target is the API answer, and no request is recorded', async () => {
      const notFound = { error: { code: 'NOT_FOUND', message: 'Portal user not found' } };
      const s = setup({
        policy,
        lookup: { status: 404, body: notFound, text: JSON.stringify(notFound) },
      });
      expect(await s.check({})).toMatchObject({ envelope: { error: { code: 'NOT_FOUND' } } });
      expect(s.approvalCalls).toHaveLength(0);
    });

    it('a store that cannot record the request refuses the call (confirmation_unavailable)', async () => {
      const logged = vi.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
      const s = setup({ policy, approval: new Error('database down') });
      expect(await s.check({})).toMatchObject({
        envelope: { error: { code: 'confirmation_unavailable' } },
      });
      logged.mockRestore();
    });
  });
});
