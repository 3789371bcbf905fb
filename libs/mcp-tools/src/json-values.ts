import { isJsonObject } from '@app/common';
import type { ErrorEnvelope } from '@app/errors';

/** A REST body in the API's error envelope (`{ error: { code, message } }`). */
export function isErrorEnvelope(value: unknown): value is ErrorEnvelope {
  return isJsonObject(value) && isJsonObject(value.error) && typeof value.error.code === 'string';
}
