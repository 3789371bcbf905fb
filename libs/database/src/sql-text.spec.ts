import { describe, expect, it } from 'vitest';
import { escapeLike } from './sql-text.js';

describe('escapeLike', () => {
  it('escapes the LIKE wildcards and the escape character', () => {
    expect(escapeLike('50%_off\\')).toBe('50\\%\\_off\\\\');
  });
  it('leaves ordinary text alone', () => {
    expect(escapeLike('Ana Lima')).toBe('Ana Lima');
  });
});
