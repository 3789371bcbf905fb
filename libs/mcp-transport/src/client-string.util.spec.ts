import { describe, expect, it } from 'vitest';
import { MAX_CLIENT_STRING_LENGTH } from '@app/common';
import { userAgentProduct } from './client-string.util.js';

describe('userAgentProduct', () => {
  it.each([
    ['claude-code/1.2.3 (darwin; arm64) node/22.1.0', 'claude-code/1.2.3'],
    ['node', 'node'],
    ['  Cursor/0.42  ', 'Cursor/0.42'],
    ['Mozilla/5.0 (X11; Linux x86_64)', 'Mozilla/5.0'],
  ])('takes the first product of %j', (header, product) => {
    expect(userAgentProduct(header)).toBe(product);
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['a comment first', '(compatible) agent/1'],
    ['a control character', 'agent\u0000/1'],
    ['a slash without a version', 'agent/'],
    ['non-ASCII', 'agênt/1'],
  ])('gives nothing for %s', (_name, header) => {
    expect(userAgentProduct(header)).toBeUndefined();
  });

  it('caps a long product like any client string', () => {
    expect(userAgentProduct(`a/${'1'.repeat(500)}`)).toHaveLength(MAX_CLIENT_STRING_LENGTH);
  });
});
