import type { EntityManager } from 'typeorm';
import type { MembershipStatus, Permission, Role, Scope, TokenKind } from '@app/access-vocabulary';

/** Who is calling: the token, its organisation, and the person who authorized it. */
export interface Principal {
  /** The token's id; for the admin console's session (kind `session`), the session's id. */
  tokenId: string;
  tokenKind: TokenKind | 'session';
  /** The name the token was given (a personal token's label, or the OAuth grant's). */
  tokenName: string;
  scopes: readonly Scope[];
  /** When the token stops working; `null` when it does not expire. Bounds the tokens it mints. */
  expiresAt: Date | null;
  /** The MCP client the token was issued to (OAuth), or the name a person gave a personal token. */
  clientName: string | null;
  /**
   * The resource an OAuth access token was issued for (RFC 8707), e.g. the MCP URL; accepted
   * only there. `null`: any route of this service (personal tokens).
   */
  audience: string | null;
  /**
   * The thumbprint (RFC 7638) of the key an OAuth access token is bound to (DPoP, RFC 9449): the
   * token is accepted only with a proof signed by that key. `null`: not bound.
   */
  dpopJkt: string | null;
  organizationId: string;
  organizationSlug: string;
  userId: string;
  userEmail: string;
  userName: string;
  /** `null` when the person is no longer a member of the token's organisation. */
  membership: {
    id: string;
    status: MembershipStatus;
    role: Role;
    permissions: readonly Permission[];
  } | null;
}

/** Where a request came from, as the audit trail records it. Never taken from client input. */
export type Channel = 'api' | 'mcp';

export interface CallerContext {
  principal: Principal;
  channel: Channel;
  /** MCP client name as the client reported it (clientInfo), for the audit trail. */
  clientName: string | null;
  /** The confirmation that authorized this call, if any. */
  confirmationId: string | null;
  /** The request id of the originating (outer) request. */
  requestId: string;
  /**
   * More rows that must commit in the transaction of this caller's write, or not at all (an MCP
   * write tool's history row): run once, by the audit trail, in the transaction of the first
   * audit event the call records, then cleared.
   */
  withWrite?: (tx: EntityManager) => Promise<void>;
}
