import { describe, expect, it } from 'vitest';
import { argumentsDigest, canonicalJson, MAX_ARGUMENTS_DEPTH } from './arguments-digest.util.js';

describe('canonicalJson', () => {
  it('sorts keys recursively, keeps array order, and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } })).toBe(
      '{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('sorts integer-like keys as strings (not in JavaScript’s own property order)', () => {
    expect(canonicalJson({ b: 3, 10: 1, 2: 2 })).toBe('{"10":1,"2":2,"b":3}');
  });

  it('escapes strings exactly as JSON does, and leaves undefined members out', () => {
    expect(canonicalJson({ s: 'a"b\\c\n\u2028é😀', u: undefined, n: null })).toBe(
      `{"n":null,"s":${JSON.stringify('a"b\\c\n\u2028é😀')}}`,
    );
    expect(canonicalJson([1, undefined, 'x'])).toBe('[1,null,"x"]');
  });

  it.each([
    ['NaN', { n: Number.NaN }],
    ['Infinity', { n: Number.POSITIVE_INFINITY }],
    ['a bigint', { n: 1n }],
    ['a function', { f: () => 1 }],
    ['a Date', { d: new Date(0) }],
    ['a Map', { m: new Map() }],
    ['undefined at the top', undefined],
  ])('refuses %s (not JSON data) with a TypeError', (_label, value) => {
    expect(() => canonicalJson(value)).toThrow(TypeError);
  });

  it('refuses cycles and hostile nesting with a TypeError, not a stack overflow', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(TypeError);

    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(() => canonicalJson(deep)).toThrow(TypeError);

    let ok: unknown = 1;
    for (let i = 0; i < MAX_ARGUMENTS_DEPTH; i++) ok = { k: ok };
    expect(() => canonicalJson(ok)).not.toThrow();
  });
});

describe('argumentsDigest', () => {
  it('is the sha-256 hex of the canonical JSON', () => {
    expect(argumentsDigest({ a: 1 })).toBe(
      '015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862',
    );
    expect(argumentsDigest({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } })).toBe(
      '16e087361bff74c7fa7f7910fb9b56dedab630d1a3706fea9acb0a4477f69785',
    );
  });

  it('is stable under key order at every depth', () => {
    const one = { id: 'p-1', options: { hard: true, reason: 'gdpr', tags: ['a', 'b'] } };
    const two = { options: { tags: ['a', 'b'], reason: 'gdpr', hard: true }, id: 'p-1' };
    const three = JSON.parse(
      '{"options":{"reason":"gdpr","tags":["a","b"],"hard":true},"id":"p-1"}',
    ) as unknown;
    expect(argumentsDigest(two)).toBe(argumentsDigest(one));
    expect(argumentsDigest(three)).toBe(argumentsDigest(one));
  });

  it('changes with any value, type or array order', () => {
    const base = argumentsDigest({ id: 'p-1', n: 1, list: [1, 2] });
    expect(argumentsDigest({ id: 'p-2', n: 1, list: [1, 2] })).not.toBe(base);
    expect(argumentsDigest({ id: 'p-1', n: '1', list: [1, 2] })).not.toBe(base);
    expect(argumentsDigest({ id: 'p-1', n: 1, list: [2, 1] })).not.toBe(base);
    expect(argumentsDigest({ id: 'p-1', n: 1, list: [1, 2], extra: null })).not.toBe(base);
  });

  it('treats absent arguments as {} (the same MCP call)', () => {
    expect(argumentsDigest(undefined)).toBe(argumentsDigest({}));
    expect(argumentsDigest({})).toBe(
      '44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a',
    );
    expect(argumentsDigest(null)).not.toBe(argumentsDigest({}));
  });
});
