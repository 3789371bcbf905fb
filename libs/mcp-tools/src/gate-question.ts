import { isJsonObject, sanitizeForPrompt } from '@app/common';
import type { ErrorEnvelope } from '@app/errors';
import type { CallerContext } from '@app/identity';
import { ConfirmationUnavailableError, type AskInput } from '@app/mcp-confirmations';
import { callOf, type GateCall, type GateDecision } from './gate-decision.js';
import { envelopeOf } from './mcp-refusals.js';
import type { RestDispatcher } from './rest-dispatcher.js';
import { pathParamsOf, pathValuesOf } from './tool-catalog.js';
import type { EndpointContract } from '@app/rest-contract';

/*
 * The target of a destructive call and the question about it, for every path of the gate: the
 * record is read through its own REST endpoint (so 404 and cross-tenant rules are the API's) and
 * the tool's confirmation spec words the question from it.
 */

/**
 * Reads the target and words the question about it: what the ledger records when it is asked
 * (`form` or `verified` alike, and an approval request), or the API's refusal when the target
 * cannot be read.
 */
export async function questionOf(
  dispatcher: RestDispatcher,
  call: GateCall,
): Promise<AskInput | GateDecision> {
  const { spec, args, ctx, caller, policy } = call;
  const target =
    spec.lookup === undefined
      ? { record: args }
      : await readTarget(dispatcher, spec.lookup, args, caller);
  if ('envelope' in target)
    return { kind: 'refused', confirmationId: null, envelope: target.envelope };
  return {
    ...callOf(call),
    targetType: spec.targetType,
    // A tool that creates its target has none yet.
    targetId: spec.lookup === undefined ? NEW_TARGET : String(target.record.id ?? args.id),
    message: spec.question(target.record, (v) => sanitizeForPrompt(promptText(v)), args),
    protocolVersion: ctx.protocolVersion,
    clientName: caller.clientName,
    requestId: caller.requestId,
    policy: { version: policy.version, expirySeconds: policy.expirySeconds },
    caller,
  };
}

/** The target id of a question about a record the call creates. */
export const NEW_TARGET = 'new';

/** Reads the record through its REST endpoint (so 404 and cross-tenant rules are the API's). */
export async function readTarget(
  dispatcher: RestDispatcher,
  lookup: EndpointContract,
  args: Record<string, unknown>,
  caller: CallerContext,
): Promise<{ record: Record<string, unknown> } | { envelope: ErrorEnvelope }> {
  const params = pathValuesOf(pathParamsOf(lookup.path), args);
  const res = await dispatcher.dispatch(caller, lookup, { params });
  if (res.status === 200 && isJsonObject(res.body)) return { record: res.body };
  // The database could not answer in time: no question can be asked, so nothing may run.
  if (res.status === 503) throw new ConfirmationUnavailableError(envelopeOf(res.body));
  const envelope = res.status < 500 ? envelopeOf(res.body) : undefined;
  if (envelope !== undefined) return { envelope };
  throw new Error(`Looking up ${lookup.path} answered ${res.status}`);
}

/** A record field as question text: strings as they are, other JSON values as JSON, none as ''. */
function promptText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
