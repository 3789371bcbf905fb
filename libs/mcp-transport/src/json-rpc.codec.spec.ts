import { describe, expect, it } from 'vitest';
import { errorBody, parseJsonRpcMessage, preSerializedResultBody } from './json-rpc.codec.js';

describe('parseJsonRpcMessage', () => {
  it('classifies requests, notifications and responses', () => {
    expect(parseJsonRpcMessage('{"jsonrpc":"2.0","id":1,"method":"tools/list"}')).toEqual({
      kind: 'request',
      id: 1,
      method: 'tools/list',
      params: undefined,
    });
    expect(parseJsonRpcMessage('{"jsonrpc":"2.0","id":"a","method":"x","params":{"k":1}}')).toEqual(
      { kind: 'request', id: 'a', method: 'x', params: { k: 1 } },
    );
    expect(parseJsonRpcMessage('{"jsonrpc":"2.0","method":"notifications/initialized"}')).toEqual({
      kind: 'notification',
      method: 'notifications/initialized',
      params: undefined,
    });
    expect(parseJsonRpcMessage('{"jsonrpc":"2.0","id":5,"result":{}}')).toEqual({
      kind: 'response',
      id: 5,
      result: {},
      error: undefined,
    });
    expect(
      parseJsonRpcMessage('{"jsonrpc":"2.0","id":5,"error":{"code":1,"message":"x"}}'),
    ).toEqual({ kind: 'response', id: 5, result: undefined, error: { code: 1, message: 'x' } });
  });

  it.each([
    ['not JSON', '{', null, -32700],
    ['empty body', '', null, -32700],
    ['a batch', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', null, -32600],
    ['an empty batch', '[]', null, -32600],
    ['a string', '"hello"', null, -32600],
    ['null', 'null', null, -32600],
    ['missing jsonrpc', '{"id":7,"method":"ping"}', 7, -32600],
    ['jsonrpc 1.0', '{"jsonrpc":"1.0","id":7,"method":"ping"}', 7, -32600],
    ['a null id', '{"jsonrpc":"2.0","id":null,"method":"ping"}', null, -32600],
    ['a fractional id', '{"jsonrpc":"2.0","id":1.5,"method":"ping"}', null, -32600],
    ['an object id', '{"jsonrpc":"2.0","id":{},"method":"ping"}', null, -32600],
    ['a numeric method', '{"jsonrpc":"2.0","id":"x","method":3}', 'x', -32600],
    ['array params', '{"jsonrpc":"2.0","id":2,"method":"ping","params":[1]}', 2, -32600],
    ['string params', '{"jsonrpc":"2.0","id":2,"method":"ping","params":"a"}', 2, -32600],
    ['null params', '{"jsonrpc":"2.0","id":2,"method":"ping","params":null}', 2, -32600],
    ['no method, no result', '{"jsonrpc":"2.0","id":9}', 9, -32600],
  ])('rejects %s', (_name, body, id, code) => {
    const message = parseJsonRpcMessage(body);
    expect(message.kind).toBe('invalid');
    expect(message).toMatchObject({ id, code });
  });

  it('names batches in the error message', () => {
    expect(parseJsonRpcMessage('[]')).toMatchObject({
      message: 'Invalid Request: JSON-RPC batches are not supported',
    });
  });
});

describe('response bodies', () => {
  it('splices a pre-serialised result without re-parsing it', () => {
    expect(JSON.parse(preSerializedResultBody('a"b', '{"x":1}'))).toEqual({
      jsonrpc: '2.0',
      id: 'a"b',
      result: { x: 1 },
    });
  });

  it('omits data when there is none', () => {
    expect(errorBody(null, -32700, 'Parse error')).toBe(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}',
    );
  });
});
