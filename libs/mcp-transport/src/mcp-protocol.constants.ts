import { isJsonObject } from '@app/common';

/**
 * Protocol constants shared by both MCP eras: revisions, `_meta` keys, JSON-RPC error codes and the
 * methods this transport knows about. Everything here is static data; no per-request work.
 */

/** Revisions that open with an `initialize` handshake (2025 era). Oldest first. */
export const LEGACY_PROTOCOL_VERSIONS = ['2025-03-26', '2025-06-18', '2025-11-25'] as const;

/** Revisions that carry version, identity and capabilities in every request's `_meta`. */
export const MODERN_PROTOCOL_VERSIONS = ['2026-07-28'] as const;

/**
 * Every revision this server speaks, newest first. This exact list is `server/discover`'s
 * `supportedVersions`, the `supported` list of a -32022 error and the `supported` list of the
 * transport's UNSUPPORTED_PROTOCOL_VERSION envelope, so a client never sees two different answers.
 */
export const SUPPORTED_PROTOCOL_VERSIONS = [
  '2026-07-28',
  '2025-11-25',
  '2025-06-18',
  '2025-03-26',
] as const;

export type LegacyProtocolVersion = (typeof LEGACY_PROTOCOL_VERSIONS)[number];
export type ModernProtocolVersion = (typeof MODERN_PROTOCOL_VERSIONS)[number];
export type SupportedProtocolVersion = (typeof SUPPORTED_PROTOCOL_VERSIONS)[number];

/** The revision assumed when a post-initialize legacy request carries no MCP-Protocol-Version. */
export const LEGACY_DEFAULT_PROTOCOL_VERSION: LegacyProtocolVersion = '2025-03-26';

/** The revision offered to a legacy `initialize` asking for one we do not speak. */
export const LEGACY_LATEST_PROTOCOL_VERSION: LegacyProtocolVersion = '2025-11-25';

const LEGACY_SET: ReadonlySet<string> = new Set(LEGACY_PROTOCOL_VERSIONS);
const MODERN_SET: ReadonlySet<string> = new Set(MODERN_PROTOCOL_VERSIONS);
const SUPPORTED_SET: ReadonlySet<string> = new Set(SUPPORTED_PROTOCOL_VERSIONS);

export function isLegacyProtocolVersion(value: string): value is LegacyProtocolVersion {
  return LEGACY_SET.has(value);
}

export function isModernProtocolVersion(value: string): value is ModernProtocolVersion {
  return MODERN_SET.has(value);
}

export function isSupportedProtocolVersion(value: string): value is SupportedProtocolVersion {
  return SUPPORTED_SET.has(value);
}

/**
 * How an era is named outside the transport (metrics labels, the call history, its API): the
 * 2025 revisions as one, the stateless revision by its date.
 */
export const ERA_LABELS = ['2025', '2026-07-28'] as const;
export type EraLabel = (typeof ERA_LABELS)[number];

export function eraLabel(era: 'legacy' | 'modern'): EraLabel {
  return era === 'modern' ? '2026-07-28' : '2025';
}

/**
 * True for 2025-03-26, whose shapes lack what 2025-06-18 added: `title` on tools, prompts,
 * resources, templates and `Implementation`, and a tool's `outputSchema` and `structuredContent`.
 * Every list and result keeps the shape of the revision it answers.
 */
export function isFirstRevision(protocolVersion: string): boolean {
  return protocolVersion === LEGACY_PROTOCOL_VERSIONS[0];
}

/** Request `_meta` keys of the modern era (exact spelling, including the slash). */
export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
/** Result `_meta` key identifying the server on every modern result. */
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/** JSON-RPC error codes this transport emits or lets handlers emit. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** Legacy (2025) "Resource not found"; never emitted on the modern path. */
export const RESOURCE_NOT_FOUND_LEGACY = -32002;
export const HEADER_MISMATCH = -32020;
export const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
/**
 * 2025-11-25 only (`URLElicitationRequiredError`): the call needs the person to finish a URL-mode
 * elicitation first, then the client retries it. Reserved on 2026-07-28, never sent there.
 */
export const URL_ELICITATION_REQUIRED = -32042;

/** Methods the caller may supply handlers for. */
export const HANDLED_METHODS = [
  'tools/list',
  'tools/call',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
] as const;

export type HandledMethod = (typeof HANDLED_METHODS)[number];
export type CapabilityKey = 'tools' | 'resources' | 'prompts' | 'completions';

/** The tasks extension (SEP-2663), advertised under `capabilities.extensions` (2026-07-28 only). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** Whether a request's declared capabilities (or a server's) include the extension `id`. */
export function declaresExtension(capabilities: Record<string, unknown>, id: string): boolean {
  const extensions = capabilities.extensions;
  return isJsonObject(extensions) && extensions[id] !== undefined;
}

/**
 * The server capability each handled method belongs to: the method is served in an era only when a
 * handler exists AND that era's advertised capabilities contain the key (for an extension's
 * methods, `capabilities.extensions` names the extension).
 */
export const HANDLED_METHOD_CAPABILITY: Readonly<
  Record<HandledMethod, CapabilityKey | { extension: string }>
> = {
  'tools/list': 'tools',
  'tools/call': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resources',
  'resources/read': 'resources',
  'prompts/list': 'prompts',
  'prompts/get': 'prompts',
  'completion/complete': 'completions',
  'tasks/get': { extension: TASKS_EXTENSION },
  'tasks/update': { extension: TASKS_EXTENSION },
  'tasks/cancel': { extension: TASKS_EXTENSION },
};

/** Whether `capabilities` advertise what `method` belongs to. */
export function advertises(capabilities: Record<string, unknown>, method: HandledMethod): boolean {
  const capability = HANDLED_METHOD_CAPABILITY[method];
  return typeof capability === 'string'
    ? capabilities[capability] !== undefined
    : declaresExtension(capabilities, capability.extension);
}

/** The protocol's reserved metadata member of params and results. */
export const META_FIELD = '_meta';

/** Modern methods whose complete results carry `ttlMs` and `cacheScope` (SEP-2549). */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
]);

/** The only method that may answer with a task (`resultType: "task"`, the tasks extension). */
export const TASK_METHODS: ReadonlySet<string> = new Set(['tools/call']);

/** The only methods that may answer `input_required` (SEP-2322). */
export const INPUT_REQUIRED_METHODS: ReadonlySet<string> = new Set([
  'tools/call',
  'resources/read',
  'prompts/get',
]);

/**
 * Methods any MCP revision defines for a client to send, plus the client notifications. Used only to
 * keep metric labels bounded: anything else is reported as `unknown`.
 */
export const KNOWN_METHOD_LABELS: ReadonlySet<string> = new Set([
  'initialize',
  'ping',
  'logging/setLevel',
  'server/discover',
  'subscriptions/listen',
  'resources/subscribe',
  'resources/unsubscribe',
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'notifications/roots/list_changed',
  ...HANDLED_METHODS,
]);
