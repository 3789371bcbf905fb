import { describe, expect, it } from 'vitest';
import { MAX_CLIENT_STRING_LENGTH, normalizeClientString } from './client-string.util.js';

describe('normalizeClientString', () => {
  it('removes control characters (U+0000 too), replaces lone surrogates, trims', () => {
    expect(normalizeClientString(' my\u0000 agent\n\u0007 ')).toBe('my agent');
    expect(normalizeClientString('a\uD800b\uDC00c')).toBe('a\uFFFDb\uFFFDc');
    expect(normalizeClientString('ok 😀')).toBe('ok 😀');
  });

  it('caps the length in code points, never splitting a surrogate pair', () => {
    expect(normalizeClientString('x'.repeat(5_000))).toHaveLength(MAX_CLIENT_STRING_LENGTH);
    const emoji = normalizeClientString('😀'.repeat(300));
    expect(Array.from(emoji)).toHaveLength(MAX_CLIENT_STRING_LENGTH);
    expect(emoji).toBe('😀'.repeat(MAX_CLIENT_STRING_LENGTH));
  });
});
