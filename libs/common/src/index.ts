/**
 * The leaf every library may import: small, dependency-free helpers that would otherwise be
 * copied into each library that needs them. Nothing here knows about Nest, HTTP or SQL; the
 * arguments digest and the prompt-text sanitiser are plain functions on JSON values and strings.
 */
export { unreachable } from './unreachable.js';
export { isJsonObject } from './json-object.js';
export { argumentsDigest, canonicalJson, MAX_ARGUMENTS_DEPTH } from './arguments-digest.util.js';
export { sanitizeForPrompt } from './prompt-text.util.js';
export { isPrototypeMemberName, textRefusal, textRefusalIn } from './input-text.js';
export { MAX_CLIENT_STRING_LENGTH, normalizeClientString } from './client-string.util.js';
export { readServerVersion } from './server-version.js';
export { correlationIdOf } from './correlation-id.js';
export { parseFormBody, readableName, type FormFields } from './form-body.js';
