import { describe, expect, it } from 'vitest';
import { isJsonObject, unreachable } from './index.js';

describe('common helpers', () => {
  it('isJsonObject accepts objects only', () => {
    expect(isJsonObject({})).toBe(true);
    expect(isJsonObject({ a: 1 })).toBe(true);
    expect(isJsonObject(null)).toBe(false);
    expect(isJsonObject([])).toBe(false);
    expect(isJsonObject('x')).toBe(false);
    expect(isJsonObject(1)).toBe(false);
  });

  it('unreachable throws with the value it was given', () => {
    // A value the types say cannot exist, as it would arrive from outside at run time.
    expect(() => Reflect.apply(unreachable, undefined, ['surprise'])).toThrow(
      'unreachable case: "surprise"',
    );
  });
});
