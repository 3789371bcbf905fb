import { describe, expect, it } from 'vitest';
import { redactRedisUrl } from './redis-url.js';

describe('redactRedisUrl', () => {
  it('hides the password and a named user, keeps host, port and database', () => {
    expect(redactRedisUrl('redis://alice:s3cret@cache.internal:6380/2')).toBe(
      'redis://***:***@cache.internal:6380/2',
    );
    expect(redactRedisUrl('rediss://:s3cret@cache.internal')).toBe('rediss://:***@cache.internal');
  });

  it('leaves a URL without credentials as it is', () => {
    expect(redactRedisUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
  });

  it('never echoes an unparsable value', () => {
    expect(redactRedisUrl('redis://user:pw@[bad')).toBe('(unparsable URL)');
  });
});
