import { describe, expect, it } from 'vitest';
import { clientDocumentUrlRefusal, isSpecialUseAddress } from './client-document-url.js';

describe('isSpecialUseAddress', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.8',
    '172.16.4.4',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '[::1]',
    '::',
    'fe80::1',
    'fd00::1',
    'fc12:3456::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '[::ffff:a9fe:a9fe]',
    '::ffff:10.1.2.3',
  ])('%s is special-use', (address) => expect(isSpecialUseAddress(address)).toBe(true));

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])(
    '%s is public',
    (address) => expect(isSpecialUseAddress(address)).toBe(false),
  );

  it('a name is not an address (names are checked when connecting)', () => {
    expect(isSpecialUseAddress('example.com')).toBe(false);
  });
});

describe('clientDocumentUrlRefusal', () => {
  it('accepts a public https URL with a path', () => {
    expect(clientDocumentUrlRefusal('https://app.example.com/oauth/client.json', false)).toBe(
      undefined,
    );
  });

  it('refuses http, no path, loopback, private, link-local and localhost names', () => {
    expect(clientDocumentUrlRefusal('http://app.example.com/client.json', false)).toMatch(/https/);
    expect(clientDocumentUrlRefusal('https://app.example.com/', false)).toMatch(/path/);
    for (const host of [
      '127.0.0.1:8443',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '10.0.0.1',
      '169.254.169.254',
      'localhost',
      'LOCALHOST.',
      'api.localhost',
    ])
      expect(clientDocumentUrlRefusal(`https://${host}/client.json`, false), host).toBeDefined();
  });

  it('the development flag allows private hosts, never http', () => {
    expect(clientDocumentUrlRefusal('https://127.0.0.1:8443/client.json', true)).toBe(undefined);
    expect(clientDocumentUrlRefusal('http://127.0.0.1:8443/client.json', true)).toBeDefined();
  });
});
