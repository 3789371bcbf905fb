import type { McpConfirmation } from './mcp-confirmation.js';

/*
 * The ledger's vocabulary: what it is given to record, what a transition found or did, and a
 * listed row. Other libraries see these through index.ts; the ledger itself stays inside.
 */

/** A confirmation to record; it expires `ttlSeconds` after the database's `now()`. */
export type NewConfirmation = Pick<
  McpConfirmation,
  | 'organizationId'
  | 'tokenId'
  | 'userId'
  | 'tool'
  | 'argumentsDigest'
  | 'targetType'
  | 'targetId'
  | 'message'
  | 'protocolVersion'
  | 'clientName'
  | 'requestId'
  | 'mode'
  | 'policyVersion'
> & { ttlSeconds: number };

/**
 * What a ledger call found or did:
 * - `consumed` / `declined`: this caller's conditional UPDATE changed the row (the single winner);
 * - `pending`: still waiting for the person (only from `ConfirmationLedger.inspect`);
 * - `replayed`: the row was already consumed or declined;
 * - `expired`: the row lapsed (a lapsed row still pending is marked `expired` on the way);
 * - `mismatch`: the row is bound to another organisation, token, person, tool or arguments;
 * - `missing`: no such row.
 */
export type LedgerTransition =
  { outcome: 'consumed' | 'declined'; confirmation: McpConfirmation } | LedgerInspection;

/** What `ConfirmationLedger.inspect` can find (it never records a decision). */
export type LedgerInspection =
  | {
      outcome: 'pending' | 'replayed' | 'expired' | 'mismatch';
      confirmation: McpConfirmation;
    }
  | { outcome: 'missing' };

/** What a `verified` transition that did not win found: the row now (null: none). */
export interface VerifiedLookup {
  won: false;
  found: (McpConfirmation & { lapsed: boolean }) | null;
}
