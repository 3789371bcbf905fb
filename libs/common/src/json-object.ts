/** A JSON object (not `null`, not an array): schemas, tool arguments and REST bodies are read as one. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
