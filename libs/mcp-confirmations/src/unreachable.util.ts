/** Exhaustiveness guard for switches over closed unions. */
export function unreachable(value: never): never {
  throw new Error(`mcp-confirmations: unreachable case ${JSON.stringify(value)}`);
}
