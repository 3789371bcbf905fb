/**
 * How much human assurance a tool call needs before it runs (PRODUCT §4.1):
 * - `none`: it runs without asking; the default of a write tool, never allowed for a destructive one;
 * - `form`: the client's own form asks the person (2026-07-28 `input_required`); the default of a
 *   destructive tool;
 * - `verified`: the person who authorized the client confirms on this server's own page;
 * - `approval`: a member with `admin`, never the requester, approves in the console.
 */
export const CONFIRMATION_MODES = ['none', 'form', 'verified', 'approval'] as const;
export type ConfirmationMode = (typeof CONFIRMATION_MODES)[number];

/**
 * What a tool does, as far as its policy goes: a `destructive` one always needs a decision (default
 * `form`); a `write` one runs without asking unless its organisation chose a mode (default `none`).
 */
export type PolicyToolKind = 'destructive' | 'write';

/** The mode of a tool nobody has set a policy for. */
export function defaultModeOf(kind: PolicyToolKind): ConfirmationMode {
  return kind === 'destructive' ? 'form' : 'none';
}

/** Bounds of a policy's expiry (seconds): how long a question or request stays open. */
export const POLICY_EXPIRY_MIN_SECONDS = 60;
export const POLICY_EXPIRY_MAX_SECONDS = 604_800;

/**
 * The policy a tool call runs under. `version` 0 is the default of a tool nobody has set (no row);
 * every change of a set policy moves it by one, and a decision is bound to the version it was made
 * under.
 */
export interface ConfirmationPolicy {
  tool: string;
  mode: ConfirmationMode;
  expirySeconds: number;
  version: number;
  /** Null for the default (never set). */
  id: string | null;
  updatedAt: Date | null;
  updatedBy: string | null;
}

/** A tool an organisation may set a policy for, as the tool table declares it. */
export interface PolicyTool {
  name: string;
  title: string;
  kind: PolicyToolKind;
}
