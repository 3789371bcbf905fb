/** The `inputRequests` / `inputResponses` key the executor uses for the confirmation form. */
export const CONFIRMATION_INPUT_KEY = 'confirm';

/** An `elicitation/create` form request as it goes inside `inputRequests` (no id, no jsonrpc). */
export interface ConfirmationElicitationRequest {
  method: 'elicitation/create';
  params: {
    mode: 'form';
    message: string;
    requestedSchema: {
      type: 'object';
      properties: {
        confirm: { type: 'boolean'; title: string; description: string; default: false };
      };
      required: ['confirm'];
    };
  };
}

/**
 * A URL-mode `elicitation/create` request as it goes inside a 2026-07-28 `inputRequests` entry:
 * the person opens `url` (this server's page) and decides there. No `elicitationId` on this
 * revision: the `requestState` names the question.
 */
export interface UrlElicitationRequest {
  method: 'elicitation/create';
  params: { mode: 'url'; message: string; url: string };
}

export function urlElicitationRequest(message: string, url: string): UrlElicitationRequest {
  return { method: 'elicitation/create', params: { mode: 'url', message, url } };
}

/**
 * The client's answer to a URL-mode request under `key`: `decline` for `decline` or `cancel` (the
 * person would not open the page), else `open` (an accept only says the page was opened; what
 * the person decided there is in the ledger).
 */
export function parseUrlAnswer(
  inputResponses: unknown,
  key: string = CONFIRMATION_INPUT_KEY,
): 'decline' | 'open' {
  if (!isRecord(inputResponses) || !Object.hasOwn(inputResponses, key)) return 'open';
  const response = inputResponses[key];
  if (!isRecord(response)) return 'open';
  return response.action === 'decline' || response.action === 'cancel' ? 'decline' : 'open';
}

/** The person's answer: `missing` means ask again (no answer, or not a clear yes or no). */
export type ConfirmationAnswer = 'accept' | 'decline' | 'missing';

/** The form asking the person to confirm; `message` names the record and the consequence. */
export function elicitationRequest(message: string): ConfirmationElicitationRequest {
  return {
    method: 'elicitation/create',
    params: {
      mode: 'form',
      message,
      requestedSchema: {
        type: 'object',
        properties: {
          confirm: {
            type: 'boolean',
            title: 'Confirm',
            description: 'Check to go ahead. Nothing changes unless you confirm.',
            default: false,
          },
        },
        required: ['confirm'],
      },
    },
  };
}

/**
 * Reads the answer under `key` in a retry's `inputResponses`:
 * - `accept` only for `{ action: 'accept', content: { confirm: true } }` (the boolean `true`);
 * - `decline` for `action: 'decline'` or `'cancel'`;
 * - `missing` for anything else: no responses, no entry under `key`, a malformed entry, or an
 *   accept whose `confirm` is false, absent or not a boolean.
 */
export function parseAnswer(
  inputResponses: unknown,
  key: string = CONFIRMATION_INPUT_KEY,
): ConfirmationAnswer {
  if (!isRecord(inputResponses) || !Object.hasOwn(inputResponses, key)) return 'missing';
  const response = inputResponses[key];
  if (!isRecord(response)) return 'missing';
  switch (response.action) {
    case 'decline':
    case 'cancel':
      return 'decline';
    case 'accept': {
      const content = response.content;
      return isRecord(content) && Object.hasOwn(content, 'confirm') && content.confirm === true
        ? 'accept'
        : 'missing';
    }
    default:
      return 'missing';
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
