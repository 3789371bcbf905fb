import { describe, expect, it } from 'vitest';
import { parseFormBody } from './form-body.js';

describe('parseFormBody', () => {
  it('decodes names and values, + as a space, and keeps every value of a repeated name', () => {
    expect(parseFormBody('a=1&b=x+y%21&a=2&c&&d=')).toEqual({
      fields: { a: ['1', '2'], b: 'x y!', c: '', d: '' },
    });
  });

  it('keeps __proto__ as an own field, never as the prototype', () => {
    const parsed = parseFormBody('__proto__=x&constructor=y');
    expect('fields' in parsed && Object.getPrototypeOf(parsed.fields)).toBe(Object.prototype);
    expect('fields' in parsed && Object.entries(parsed.fields)).toEqual([
      ['__proto__', 'x'],
      ['constructor', 'y'],
    ]);
  });

  it('refuses what is not well-formed UTF-8 (a surrogate as CESU-8, a cut sequence, a bad escape), naming a readable field', () => {
    expect(parseFormBody('code=a%ED%A0%80')).toEqual({
      refusal: 'code is not well-formed UTF-8',
    });
    expect(parseFormBody('state=%E2%82')).toEqual({ refusal: 'state is not well-formed UTF-8' });
    expect(parseFormBody('x=%zz')).toEqual({ refusal: 'x is not well-formed UTF-8' });
    expect(parseFormBody('%ED%A0%80=1')).toEqual({
      refusal: 'a parameter name is not well-formed UTF-8',
    });
    expect(parseFormBody('<b>=%E2')).toEqual({ refusal: 'a parameter is not well-formed UTF-8' });
  });
});
