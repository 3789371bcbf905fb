import { describe, expect, it } from 'vitest';
import { MAX_CLIENT_STRING_LENGTH, normalizeClientString } from './client-string.util.js';

describe('normalizeClientString', () => {
  it('removes control characters (U+0000 too), replaces lone surrogates, trims', () => {
    expect(normalizeClientString(' my\u0000 agent\n\u0007 ')).toBe('my agent');
    expect(normalizeClientString('a\uD800b\uDC00c')).toBe('a\uFFFDb\uFFFDc');
    expect(normalizeClientString('ok 😀')).toBe('ok 😀');
  });

  it('makes one line of what it shows: line breaks fold, ESC, bidi and zero-width characters go', () => {
    const hostile =
      'Good\nClient\r\n\u001b[31mred\u001b[0m \u202Egnp.exe\u202C z\u200Bw\u2066i\u2069';
    expect(normalizeClientString(hostile)).toBe('Good Client [31mred[0m gnp.exe zwi');
    expect(normalizeClientString('a\u2028b\u0085c\td')).toBe('a b c d');
  });

  it('caps the length in code points, never splitting a surrogate pair', () => {
    expect(normalizeClientString('x'.repeat(49_000))).toHaveLength(MAX_CLIENT_STRING_LENGTH);
    const emoji = normalizeClientString('😀'.repeat(300));
    expect(Array.from(emoji)).toHaveLength(MAX_CLIENT_STRING_LENGTH);
    expect(emoji).toBe('😀'.repeat(MAX_CLIENT_STRING_LENGTH));
  });
});
