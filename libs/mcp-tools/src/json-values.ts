import type { ErrorEnvelope } from '@app/errors';

/** A JSON object (not `null`, not an array): schemas, tool arguments and REST bodies are read as one. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A REST body in the API's error envelope (`{ error: { code, message } }`). */
export function isErrorEnvelope(value: unknown): value is ErrorEnvelope {
  return isJsonObject(value) && isJsonObject(value.error) && typeof value.error.code === 'string';
}
