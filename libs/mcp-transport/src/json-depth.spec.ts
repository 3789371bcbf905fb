import { describe, expect, it } from 'vitest';
import { parseJsonRpcMessage } from './json-rpc.codec.js';
import { exceedsJsonDepth } from './json-depth.js';

describe('exceedsJsonDepth', () => {
  it('counts objects and arrays, not brackets inside strings', () => {
    expect(exceedsJsonDepth('{"a":[1,{"b":2}]}', 3)).toBe(false);
    expect(exceedsJsonDepth('{"a":[1,{"b":[2]}]}', 3)).toBe(true);
    expect(exceedsJsonDepth(`{"a":"${'['.repeat(1000)}"}`, 2)).toBe(false);
    expect(exceedsJsonDepth(`{"a":"\\"${'['.repeat(10)}"}`, 2)).toBe(false);
    expect(exceedsJsonDepth('[]'.repeat(100_000), 1)).toBe(false);
  });
});

describe('a 300 000-deep MCP message', () => {
  it('is an Invalid Request (-32600), refused before it is parsed', () => {
    const deep = `${'['.repeat(300_000)}${']'.repeat(300_000)}`;
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_accounts","arguments":{"q":${deep}}}}`;
    expect(parseJsonRpcMessage(body)).toMatchObject({
      kind: 'invalid',
      id: null,
      code: -32600,
      message: expect.stringMatching(/nests deeper than 64 levels/),
    });
  });
});
