import { describe, expect, it } from 'vitest';
import { redactUrl } from './url-redaction.js';

describe('redactUrl', () => {
  it('redacts secret query parameters, whatever their case or encoding, and keeps the rest', () => {
    expect(redactUrl('/v1/me?access_token=pat_abc&limit=5')).toBe(
      '/v1/me?access_token=[redacted]&limit=5',
    );
    expect(redactUrl('/mcp?TOKEN=pat_abc')).toBe('/mcp?TOKEN=[redacted]');
    expect(redactUrl('/mcp?%61ccess_token=pat_abc')).toBe('/mcp?%61ccess_token=[redacted]');
    expect(redactUrl('/x?a=1&access_token=s1&access_token=s2')).toBe(
      '/x?a=1&access_token=[redacted]&access_token=[redacted]',
    );
    expect(redactUrl('/oauth/callback?code=abc&state=s&iss=x')).toBe(
      '/oauth/callback?code=[redacted]&state=[redacted]&iss=x',
    );
    expect(redactUrl('/x?%E0%A4%A=pat_abc')).toBe('/x?[redacted]');
    expect(redactUrl('/v1/accounts?q=token')).toBe('/v1/accounts?q=token');
  });

  it('redacts the invitation token in the accept path, encoded or not', () => {
    expect(redactUrl('/v1/portal-invitations/inv_secret/accept')).toBe(
      '/v1/portal-invitations/[redacted]/accept',
    );
    expect(redactUrl('/v1/Portal%2Dinvitations/inv_secret/accept?x=1')).toBe(
      '/v1/Portal%2Dinvitations/[redacted]/accept?x=1',
    );
    expect(redactUrl('/v1/portal-users/123')).toBe('/v1/portal-users/123');
  });
});
