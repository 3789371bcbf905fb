/**
 * Exhaustiveness guard for a `switch` over a closed union: the compiler proves the call is never
 * reached, and if a value outside the union arrives at run time anyway, it fails loudly.
 */
export function unreachable(value: never): never {
  throw new Error(`unreachable case: ${JSON.stringify(value)}`);
}
