// The exact wire requests the scenarios send (see test/support/mcp-peers.ts and
// test/e2e/mcp-wire.e2e-spec.ts for what a 2026-07-28 and a 2025 request need).

export const MODERN = '2026-07-28';
export const LEGACY = '2025-11-25';
const ACCEPT = 'application/json, text/event-stream';

/** `_meta` of every 2026-07-28 request; form elicitation is declared (G and H confirm). */
export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'platform-bench', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};

function base(token) {
  return { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: ACCEPT };
}

/** A 2026-07-28 request: `_meta` in params plus MCP-Protocol-Version, Mcp-Method, Mcp-Name. */
export function modernRequest(token, id, method, params = {}) {
  const name = typeof params.name === 'string' ? params.name : params.uri;
  const headers = { ...base(token), 'mcp-protocol-version': MODERN, 'mcp-method': method };
  if (typeof name === 'string') headers['mcp-name'] = name;
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method,
    params: { ...params, _meta: MODERN_META },
  });
  return { headers, body };
}

/** The 2025 stateless handshake: `initialize` (no version header), then `notifications/initialized`. */
export function legacyInitialize(token) {
  return [
    {
      headers: base(token),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: {
          protocolVersion: LEGACY,
          capabilities: {},
          clientInfo: { name: 'platform-bench', version: '1.0.0' },
        },
      }),
    },
    {
      headers: { ...base(token), 'mcp-protocol-version': LEGACY },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    },
  ];
}

/** A 2025 request after the handshake: no `_meta`, `MCP-Protocol-Version: 2025-11-25`. */
export function legacyRequest(token, id, method, params = {}) {
  return {
    headers: { ...base(token), 'mcp-protocol-version': LEGACY },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  };
}

/** The first leg of a confirmed delete, and the accept that redeems its `requestState`. */
export function deleteAsk(token, id, portalUserId) {
  return modernRequest(token, id, 'tools/call', {
    name: 'delete_portal_user',
    arguments: { id: portalUserId },
  });
}

export function deleteAccept(token, id, portalUserId, requestState) {
  return modernRequest(token, id, 'tools/call', {
    name: 'delete_portal_user',
    arguments: { id: portalUserId },
    requestState,
    inputResponses: { confirm: { action: 'accept', content: { confirm: true } } },
  });
}

/** The tool result of a JSON-RPC response body, or a description of what came instead. */
export function toolOutcome(json) {
  if (json?.error !== undefined) return { kind: 'rpc_error', code: json.error.code };
  const result = json?.result;
  if (result === undefined) return { kind: 'invalid' };
  if (result.resultType === 'input_required')
    return { kind: 'input_required', requestState: result.requestState };
  if (result.isError === true) return { kind: 'tool_error', code: errorCodeOf(result) };
  return { kind: 'ok', value: result.structuredContent };
}

/** A tool error's code: the envelope is the text block (tool errors carry no structuredContent). */
function errorCodeOf(result) {
  if (result.structuredContent?.error?.code !== undefined)
    return result.structuredContent.error.code;
  try {
    return JSON.parse(result.content?.[0]?.text ?? '').error?.code;
  } catch {
    return undefined;
  }
}
