import * as fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { safeReturnPath } from './browser-secrets.js';

/** Where a browser on https://platform.example ends up after `Location: <path>`. */
function landing(path: string): URL {
  return new URL(path, 'https://platform.example/signin');
}

describe('safeReturnPath', () => {
  it.each([
    '/..//evil.example/x',
    '/%2e%2e//evil.example/x',
    '/%2E%2E//evil.example/x',
    '/admin/../..//evil.example/x',
    '/./..//evil.example',
    '/.//evil.example',
    '//evil.example',
    '///evil.example',
    '/\\evil.example',
    '\\\\evil.example',
    '/\t/evil.example',
    '/\n/evil.example',
    'https://evil.example/',
    'javascript:alert(1)',
    'data:text/html,x',
  ])('%j never leaves this site', (candidate) => {
    const path = safeReturnPath(candidate);
    expect(path).toBe('/');
  });

  it('keeps a path of this site, normalised, without its fragment', () => {
    expect(safeReturnPath('/consent/abc?x=1#frag')).toBe('/consent/abc?x=1');
    expect(safeReturnPath('/admin/calls/../audit')).toBe('/admin/audit');
    expect(safeReturnPath('/session')).toBe('/session');
  });

  it('answers the fallback for what is not a string or is too long', () => {
    expect(safeReturnPath(undefined, '/x')).toBe('/x');
    expect(safeReturnPath(['/a'], '/x')).toBe('/x');
    expect(safeReturnPath(`/${'a'.repeat(3000)}`, '/x')).toBe('/x');
  });

  it('whatever the candidate, a browser following the answer stays on this site', () => {
    const pieces = fc.constantFrom(
      '/',
      '//',
      '\\',
      '..',
      '.',
      '%2e',
      '%2E%2e',
      'evil.example',
      '?',
      '#',
      '@',
      ':',
      '\t',
      'a',
      'https:',
      '%5c',
      '%2f',
    );
    const candidate = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.array(pieces, { maxLength: 12 }).map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(candidate, (c) => {
        const path = safeReturnPath(c);
        expect(path.startsWith('/')).toBe(true);
        expect(landing(path).origin).toBe('https://platform.example');
        expect(`${landing(path).pathname}${landing(path).search}`).toBe(path);
      }),
      { numRuns: 2000 },
    );
  });
});
