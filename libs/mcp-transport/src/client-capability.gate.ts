/**
 * Gate for modern `input_required` results: an input request may only ask the client for something
 * this request's `clientCapabilities` declared (SEP-2322 / SEP-2575). Checked before anything is
 * sent, so an undeclared capability is always a clean 400 + -32021.
 */

import { isJsonObject } from '@app/common';

export type InputRequestsVerdict =
  | { kind: 'ok' }
  | { kind: 'missing'; requiredCapabilities: Record<string, Record<string, unknown>> }
  | { kind: 'invalid'; reason: string };

const OK: InputRequestsVerdict = { kind: 'ok' };

type Requirement = readonly [capability: string, feature: string | undefined];

/**
 * What one input request needs from the client, or a string explaining why it is malformed.
 * `elicitation: {}` means form mode only; URL mode needs `elicitation.url`; tool-enabled sampling
 * needs `sampling.tools`; `roots/list` needs `roots`.
 */
function requirementOf(request: unknown): Requirement | string {
  if (!isJsonObject(request) || typeof request.method !== 'string') {
    return 'an input request must be an object with a string method';
  }
  const params = request.params;
  if (params !== undefined && !isJsonObject(params)) {
    return `input request ${request.method}: params must be an object`;
  }
  switch (request.method) {
    case 'elicitation/create': {
      const mode = params?.mode;
      if (mode === undefined || mode === 'form') return ['elicitation', 'form'];
      if (mode === 'url') return ['elicitation', 'url'];
      return `elicitation/create: unknown mode ${JSON.stringify(mode)}`;
    }
    case 'sampling/createMessage':
      return params?.tools !== undefined || params?.toolChoice !== undefined
        ? ['sampling', 'tools']
        : ['sampling', undefined];
    case 'roots/list':
      return ['roots', undefined];
    default:
      return `unsupported input request method ${request.method}`;
  }
}

function isDeclared(
  clientCapabilities: Record<string, unknown>,
  requirement: Requirement,
): boolean {
  const [capability, feature] = requirement;
  const declared = clientCapabilities[capability];
  if (!isJsonObject(declared)) return false;
  if (feature === undefined) return true;
  if (declared[feature] !== undefined) return true;
  // `elicitation: {}` (neither mode named) means form only.
  return (
    capability === 'elicitation' &&
    feature === 'form' &&
    declared.form === undefined &&
    declared.url === undefined
  );
}

/** Checks every input request against the capabilities the request declared. */
export function checkInputRequests(
  inputRequests: Record<string, unknown>,
  clientCapabilities: Record<string, unknown>,
): InputRequestsVerdict {
  let missing: Record<string, Record<string, unknown>> | undefined;
  for (const key in inputRequests) {
    if (!Object.hasOwn(inputRequests, key)) continue;
    const requirement = requirementOf(inputRequests[key]);
    if (typeof requirement === 'string') return { kind: 'invalid', reason: requirement };
    if (isDeclared(clientCapabilities, requirement)) continue;
    const [capability, feature] = requirement;
    missing ??= {};
    const entry = (missing[capability] ??= {});
    if (feature !== undefined) entry[feature] = {};
  }
  return missing === undefined ? OK : { kind: 'missing', requiredCapabilities: missing };
}
