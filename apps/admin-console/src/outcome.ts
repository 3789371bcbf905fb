/**
 * A tool call's outcome class, as the server reports it (`outcome` on each call and in the
 * per-minute series): `ok` (including `input_required`, a confirmation being asked), `tool_error`
 * (the tool answered with an error the caller can act on), `refused` (authorization or
 * confirmation refused the call) and `protocol_error` (a JSON-RPC error).
 */
export type Outcome = 'ok' | 'tool_error' | 'refused' | 'protocol_error';

export const OUTCOMES: readonly { key: Outcome; label: string }[] = [
  { key: 'ok', label: 'OK' },
  { key: 'tool_error', label: 'Tool error' },
  { key: 'refused', label: 'Refused' },
  { key: 'protocol_error', label: 'Protocol error' },
];

export function outcomeLabel(outcome: string): string {
  return OUTCOMES.find((o) => o.key === outcome)?.label ?? outcome;
}
