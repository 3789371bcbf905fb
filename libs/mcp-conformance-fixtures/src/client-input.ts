import { randomUUID } from 'node:crypto';
import { argumentsDigest, isJsonObject } from '@app/common';
import type { RequestStateCodec } from '@app/mcp-confirmations';
import type { McpCallExtra } from '@app/mcp-tools';
import {
  ClientRequestFailed,
  INVALID_PARAMS,
  McpError,
  type McpHandlerOutcome,
  type McpRequestContext,
} from '@app/mcp-transport';

/** One thing to ask the client: an `elicitation/create`, `sampling/createMessage` or `roots/list`. */
export interface InputRequest {
  method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  params: Record<string, unknown>;
}

/** How long a fixture's `requestState` stays valid. */
const STATE_TTL_SECONDS = 600;

/**
 * Getting answers from the client, the way each era allows it, for the conformance fixtures:
 * 2026-07-28 answers `input_required` (MRTR) and reads `inputResponses` on the retry; 2025 sends
 * each request on the call's response stream (the transport's request channel) and waits.
 * `requestState` is signed with the confirmation codec (the same keys and MAC as the destructive
 * tools' confirmations) and bound to the token, the step and the call's arguments.
 */
export class ClientInput {
  constructor(private readonly codec: RequestStateCodec) {}

  /**
   * The answers to `requests`, or the outcome to return instead (modern: `input_required` asking
   * for the ones still missing). 2025: a failed request answers `{ error: message }` for its key.
   */
  async gather(
    requests: Readonly<Record<string, InputRequest>>,
    params: Record<string, unknown>,
    ctx: McpRequestContext,
    step?: { name: string; extra: McpCallExtra },
  ): Promise<
    { answers: Record<string, Record<string, unknown>> } | { outcome: McpHandlerOutcome }
  > {
    if (ctx.era === 'legacy') {
      const answers: Record<string, Record<string, unknown>> = {};
      for (const [key, request] of Object.entries(requests)) {
        try {
          answers[key] = await ctx.channel.request(request.method, request.params);
        } catch (error) {
          if (!(error instanceof ClientRequestFailed)) throw error;
          answers[key] = { error: error.message };
        }
      }
      return { answers };
    }
    const responses = readInputResponses(params);
    const answers: Record<string, Record<string, unknown>> = {};
    const missing: Record<string, InputRequest> = {};
    for (const [key, request] of Object.entries(requests)) {
      const answer = responses[key];
      if (answer === undefined) missing[key] = request;
      else answers[key] = answer;
    }
    if (Object.keys(missing).length === 0) return { answers };
    return {
      outcome: {
        kind: 'input_required',
        inputRequests: missing,
        ...(step === undefined
          ? {}
          : { requestState: this.stateFor(step.name, params, step.extra) }),
      },
    };
  }

  /** A signed state naming `stepName`, bound to the token and the call's arguments. */
  stateFor(stepName: string, params: Record<string, unknown>, extra: McpCallExtra): string {
    const p = extra.principal;
    return this.codec.sign({
      confirmationId: randomUUID(),
      organizationId: p.organizationId,
      tokenId: p.tokenId,
      userId: p.userId,
      tool: stepName,
      argumentsDigest: argumentsDigest(params.arguments ?? {}),
      expiresAtUnix: Math.floor(Date.now() / 1000) + STATE_TTL_SECONDS,
      // The fixtures' steps follow no organisation's policy: the default's version.
      policyVersion: 0,
    });
  }

  /**
   * The step an echoed `requestState` names: undefined when there is none; a JSON-RPC -32602 when
   * it is tampered with, expired, another token's, or for other arguments.
   */
  stepOf(params: Record<string, unknown>, extra: McpCallExtra): string | undefined {
    const state = params.requestState;
    if (state === undefined) return undefined;
    const verdict = this.codec.verify(state);
    const p = extra.principal;
    if (
      !verdict.ok ||
      verdict.claims.tokenId !== p.tokenId ||
      verdict.claims.expiresAtUnix * 1000 < Date.now() ||
      verdict.claims.argumentsDigest !== argumentsDigest(params.arguments ?? {})
    ) {
      throw new McpError(INVALID_PARAMS, 'Invalid params: requestState failed its integrity check');
    }
    return verdict.claims.tool;
  }
}

/** `inputResponses` as a map of objects; a malformed structure is -32602 (never accepted). */
function readInputResponses(
  params: Record<string, unknown>,
): Record<string, Record<string, unknown>> {
  const raw = params.inputResponses;
  if (raw === undefined) return {};
  if (!isJsonObject(raw))
    throw new McpError(INVALID_PARAMS, 'Invalid params: inputResponses must be an object');
  const responses: Record<string, Record<string, unknown>> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!isJsonObject(value))
      throw new McpError(INVALID_PARAMS, `Invalid params: inputResponses.${key} must be an object`);
    responses[key] = value;
  }
  return responses;
}
