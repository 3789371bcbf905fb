import { describe, expect, it } from 'vitest';
import { decodeHeaderValue, isAcceptable, trimOws } from './http-headers.util.js';

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

describe('decodeHeaderValue', () => {
  it('returns a plain value unchanged', () => {
    expect(decodeHeaderValue('get_weather')).toBe('get_weather');
    expect(decodeHeaderValue('file:///projects/app/config.json')).toBe(
      'file:///projects/app/config.json',
    );
  });

  it('trims surrounding spaces and tabs but keeps inner ones', () => {
    expect(decodeHeaderValue('  get_weather \t')).toBe('get_weather');
    expect(decodeHeaderValue(' a b ')).toBe('a b');
  });

  it('decodes the lowercase base64 sentinel to UTF-8 text', () => {
    expect(decodeHeaderValue(`=?base64?${b64('Hello, 世界')}?=`)).toBe('Hello, 世界');
    expect(decodeHeaderValue('=?base64?IHBhZGRlZCA=?=')).toBe(' padded ');
    expect(decodeHeaderValue('=?base64?bGluZTEKbGluZTI=?=')).toBe('line1\nline2');
    expect(decodeHeaderValue('=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=')).toBe('=?base64?literal?=');
  });

  it('decodes a sentinel surrounded by whitespace', () => {
    expect(decodeHeaderValue(`  =?base64?${b64('café')}?=  `)).toBe('café');
  });

  it('treats non-lowercase markers as a literal value', () => {
    const upper = `=?BASE64?${b64('Hello')}?=`;
    expect(decodeHeaderValue(upper)).toBe(upper);
    const mixed = `=?Base64?${b64('Hello')}?=`;
    expect(decodeHeaderValue(mixed)).toBe(mixed);
  });

  it('treats a value missing the prefix or the suffix as literal', () => {
    expect(decodeHeaderValue(b64('Hello'))).toBe('SGVsbG8=');
    expect(decodeHeaderValue(`=?base64?${b64('Hello')}`)).toBe('=?base64?SGVsbG8=');
    expect(decodeHeaderValue('=?base64?=')).toBe('=?base64?=');
  });

  it('rejects invalid base64 inside the sentinel', () => {
    expect(decodeHeaderValue('=?base64?SGVsbG8?=')).toBeNull(); // missing padding
    expect(decodeHeaderValue('=?base64?SGVs!!!bG8=?=')).toBeNull(); // not in the alphabet
    expect(decodeHeaderValue('=?base64?SGVsbG9=?=')).toBeNull(); // non-canonical trailing bits
    expect(decodeHeaderValue('=?base64?SGVsbG8-?=')).toBeNull(); // base64url is not base64
    expect(decodeHeaderValue('=?base64?SGV sbG8=?=')).toBeNull();
  });

  it('rejects base64 that is not valid UTF-8', () => {
    const invalidUtf8 = Buffer.from([0xff, 0xfe, 0x41]).toString('base64');
    expect(decodeHeaderValue(`=?base64?${invalidUtf8}?=`)).toBeNull();
  });

  it('rejects raw values with control or non-ASCII characters', () => {
    expect(decodeHeaderValue('caf\u00e9')).toBeNull();
    expect(decodeHeaderValue('a\u0001b')).toBeNull();
    expect(decodeHeaderValue('a\u007fb')).toBeNull();
  });

  it('decodes the empty sentinel to the empty string', () => {
    expect(decodeHeaderValue('=?base64??=')).toBe('');
  });
});

describe('trimOws', () => {
  it('trims only SP and HTAB', () => {
    expect(trimOws(' \tx\t ')).toBe('x');
    expect(trimOws('\nx\n')).toBe('\nx\n');
    expect(trimOws('x')).toBe('x');
  });
});

describe('isAcceptable', () => {
  it('accepts an absent or empty Accept header', () => {
    expect(isAcceptable(undefined)).toBe(true);
    expect(isAcceptable('')).toBe(true);
    expect(isAcceptable('  ')).toBe(true);
  });

  it('accepts application/json, application/* and */* in any position and case', () => {
    expect(isAcceptable('application/json, text/event-stream')).toBe(true);
    expect(isAcceptable('text/event-stream, application/json')).toBe(true);
    expect(isAcceptable('application/json')).toBe(true);
    expect(isAcceptable('Application/JSON')).toBe(true);
    expect(isAcceptable('application/*')).toBe(true);
    expect(isAcceptable('*/*')).toBe(true);
    expect(isAcceptable('text/html, */*;q=0.1')).toBe(true);
    expect(isAcceptable('application/json; charset=utf-8')).toBe(true);
  });

  it('refuses headers we cannot satisfy with a JSON body', () => {
    expect(isAcceptable('text/event-stream')).toBe(false);
    expect(isAcceptable('text/html, text/plain')).toBe(false);
    expect(isAcceptable('application/xml')).toBe(false);
    expect(isAcceptable('application/jsonx')).toBe(false);
  });

  it('honours an explicit q=0 as "not acceptable"', () => {
    expect(isAcceptable('application/json;q=0, text/event-stream')).toBe(false);
    expect(isAcceptable('application/json; q=0.000')).toBe(false);
    expect(isAcceptable('application/json;q=0, */*;q=0.5')).toBe(true);
    expect(isAcceptable('application/json;q=0.5')).toBe(true);
  });
});
