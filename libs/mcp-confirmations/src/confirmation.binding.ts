/*
 * What a confirmation row is bound to, said once for both sides of the ledger: in memory
 * ({@link isBoundTo}) and as the SQL condition every transition carries ({@link BOUND}, with
 * {@link bindingParams} in the same order), so a row changes only for the call it was asked for.
 */

/** What a confirmation is bound to. A transition applies only to a row bound to exactly this. */
export interface ConfirmationBinding {
  organizationId: string;
  tokenId: string;
  userId: string;
  tool: string;
  /** sha-256 hex of the canonical JSON of the tool arguments. */
  argumentsDigest: string;
}

/** The row must still be bound to what the caller presents ($2…$6). */
export const BOUND = `organization_id = $2 AND token_id = $3 AND user_id = $4 AND tool = $5 AND arguments_digest = $6`;

/** The same binding as {@link BOUND}, at $1…$5 (statements that name no row id). */
export const BOUND_FROM_1 = `organization_id = $1 AND token_id = $2 AND user_id = $3 AND tool = $4 AND arguments_digest = $5`;

/** The binding as the parameters of {@link BOUND} / {@link BOUND_FROM_1}, in their order. */
export function bindingParams(b: ConfirmationBinding): string[] {
  return [b.organizationId, b.tokenId, b.userId, b.tool, b.argumentsDigest];
}

/** The row belongs to the call that presents it (the same organisation, token, person, tool and arguments). */
export function isBoundTo(c: ConfirmationBinding, b: ConfirmationBinding): boolean {
  return (
    c.organizationId === b.organizationId &&
    c.tokenId === b.tokenId &&
    c.userId === b.userId &&
    c.tool === b.tool &&
    c.argumentsDigest === b.argumentsDigest
  );
}
