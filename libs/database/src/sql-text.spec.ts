import { describe, expect, it } from 'vitest';
import { escapeLike, firstRowAs } from './sql-text.js';

describe('escapeLike', () => {
  it('escapes the LIKE wildcards and the escape character', () => {
    expect(escapeLike('50%_off\\')).toBe('50\\%\\_off\\\\');
  });
  it('leaves ordinary text alone', () => {
    expect(escapeLike('Ana Lima')).toBe('Ana Lima');
  });
});

describe('firstRowAs', () => {
  it('maps the first row and ignores the rest', () => {
    expect(firstRowAs([{ n: 1 }, { n: 2 }], (r) => r.n * 10)).toBe(10);
  });
  it('is undefined when the statement returned no row', () => {
    expect(firstRowAs([] as Array<{ n: number }>, (r) => r.n)).toBeUndefined();
  });
});
