import { isJsonObject, unreachable } from '@app/common';
import type { ConfirmationPolicy } from '@app/confirmation-policies';
import {
  CONFIRMATION_INPUT_KEY,
  parseUrlAnswer,
  urlElicitationRequest,
  type OpenQuestion,
  type VerifiedConfirmationService,
  type VerifiedRedeemOutcome,
} from '@app/mcp-confirmations';
import type { MetricsService } from '@app/metrics';
import { INVALID_PARAMS, McpError, URL_ELICITATION_REQUIRED } from '@app/mcp-transport';
import { inSpanAsync } from '@app/tracing';
import {
  afterRedemption,
  bindingOf,
  refused,
  spent,
  SPAN_ASK,
  SPAN_REDEEM,
  type GateCall,
  type GateDecision,
} from './gate-decision.js';
import { questionOf } from './gate-question.js';
import type { RestDispatcher } from './rest-dispatcher.js';
import type { CompiledTool } from './tool-catalog.js';

/** URL-mode elicitation is declared as `elicitation: { url: {} }` (with or without `form`). */
export function declaresUrlElicitation(capabilities: Record<string, unknown>): boolean {
  const e = capabilities.elicitation;
  return isJsonObject(e) && e.url !== undefined;
}

/** The one 2025 revision with URL-mode elicitation (`URLElicitationRequiredError`, -32042). */
const URL_MODE_LEGACY_REVISION = '2025-11-25';

/**
 * The gate's `verified` path (ADR 0012): the person who authorized the client decides on this
 * server's page, signed in; the client only opens the page and retries. 2026-07-28 asks with a
 * URL-mode `input_required` and the retry consumes the page's decision by its `requestState`;
 * 2025-11-25 answers `URLElicitationRequiredError` and the same call retried consumes it by its
 * binding. A client that cannot open a URL for the person is refused up front
 * (`confirmation_required`, naming the mode and who can change it). Built by
 * {@link DestructiveToolGate} from its own collaborators.
 */
export class VerifiedGate {
  constructor(
    private readonly verifiedConfirmations: VerifiedConfirmationService,
    private readonly metrics: MetricsService,
    private readonly dispatcher: RestDispatcher,
  ) {}

  async check(call: GateCall, params: Record<string, unknown>): Promise<GateDecision> {
    const { tool, ctx, policy } = call;
    const urlCapable =
      declaresUrlElicitation(ctx.clientCapabilities) &&
      (ctx.era === 'modern' || ctx.protocolVersion === URL_MODE_LEGACY_REVISION);
    if (!urlCapable) return refused(null, 'confirmation_required', unusable(tool, policy));
    const binding = bindingOf(call);
    if (ctx.era === 'legacy') {
      // No requestState in 2025: the retry is the same call, found by its binding.
      const found = await inSpanAsync(
        SPAN_REDEEM,
        () => this.verifiedConfirmations.forCall(binding),
        {},
        (o) => ({ 'mcp.confirmation.outcome': o.kind }),
      );
      switch (found.kind) {
        case 'consumed':
          return spent(this.metrics, 'consumed', found.confirmationId);
        case 'declined':
          return refused(
            found.confirmationId,
            'USER_DECLINED',
            'The person declined on the confirmation page. Nothing was changed; calling again asks again.',
          );
        case 'pending':
          return urlRequired(found);
        case 'replayed':
          this.metrics.recordConfirmation('replayed');
          return refused(
            found.confirmationId,
            'confirmation_replayed',
            'This call already ran with the confirmation the person gave on the page; each confirmation runs one call once. Nothing was run again.',
          );
        case 'none': {
          const asked = await this.ask(call);
          return 'kind' in asked ? asked : urlRequired(asked);
        }
        default:
          return unreachable(found);
      }
    }
    const state = params.requestState;
    if (state === undefined) {
      const asked = await this.ask(call);
      return 'kind' in asked ? asked : inputRequiredUrl(asked, asked.requestState);
    }
    if (typeof state !== 'string')
      throw new McpError(INVALID_PARAMS, 'Invalid params: requestState must be a string');
    const declined = parseUrlAnswer(params.inputResponses) === 'decline';
    const outcome: VerifiedRedeemOutcome = await inSpanAsync(
      SPAN_REDEEM,
      () => this.verifiedConfirmations.redeem(state, binding, declined),
      { 'mcp.confirmation.answer': declined ? 'decline' : 'open' },
      (redeemed) => ({ 'mcp.confirmation.outcome': redeemed.kind }),
    );
    // Not decided on the page yet: the same question, the same page, the same state.
    if (outcome.kind === 'pending') return inputRequiredUrl(outcome, state);
    return afterRedemption(outcome, this.metrics, {
      askAgain: async () => {
        const asked = await this.ask(call);
        return 'kind' in asked ? asked : inputRequiredUrl(asked, asked.requestState);
      },
      decliner: 'person',
      // A decline on the page was counted there; only the client's own is counted here.
      countDecline: declined,
    });
  }

  /** Reads the target, records a `verified` question; the question to send, or the refusal. */
  private async ask(
    call: GateCall,
  ): Promise<(OpenQuestion & { requestState: string }) | GateDecision> {
    const question = await questionOf(this.dispatcher, call);
    if ('kind' in question) return question;
    const asked = await inSpanAsync(SPAN_ASK, () => this.verifiedConfirmations.ask(question));
    this.metrics.recordConfirmation('asked');
    return {
      confirmationId: asked.confirmationId,
      message: question.message,
      url: asked.url,
      requestState: asked.requestState,
    };
  }
}

/** Why a `verified` policy refuses a client that cannot open a URL for its person (who can change it). */
function unusable(tool: CompiledTool, policy: ConfirmationPolicy): string {
  const needs = 'the person who authorized this client confirms it on this server’s own page';
  return (
    `${tool.def.name} is destructive and the organisation’s confirmation policy says it runs only after ` +
    `${needs} (mode "${policy.mode}"). That needs a client that declares URL-mode elicitation ` +
    '(elicitation.url) on protocol revision 2026-07-28 or 2025-11-25, and this one does not. ' +
    'Nothing was run. An organisation admin can change the policy.'
  );
}

/** What the person reads in the client before opening the page: the question, and where to answer. */
function urlPrompt(question: OpenQuestion): string {
  return `${question.message} Confirm or decline on the server’s page, signed in as yourself.`;
}

/** 2026-07-28: the URL-mode question inside `input_required`, with the state its retry echoes. */
function inputRequiredUrl(question: OpenQuestion, requestState: string): GateDecision {
  return {
    kind: 'input_required',
    confirmationId: question.confirmationId,
    inputRequests: {
      [CONFIRMATION_INPUT_KEY]: urlElicitationRequest(urlPrompt(question), question.url),
    },
    requestState,
  };
}

/** 2025-11-25: `URLElicitationRequiredError` (-32042); the client opens the page, then retries. */
function urlRequired(question: OpenQuestion): GateDecision {
  return {
    kind: 'rpc_error',
    confirmationId: question.confirmationId,
    error: new McpError(
      URL_ELICITATION_REQUIRED,
      'This call runs only after the person confirms it on the server’s page; open the URL, then call the tool again.',
      {
        elicitations: [
          {
            mode: 'url',
            elicitationId: question.confirmationId,
            url: question.url,
            message: urlPrompt(question),
          },
        ],
      },
    ),
  };
}
