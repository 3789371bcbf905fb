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
      '/x?a=[redacted]&access_token=[redacted]&access_token=[redacted]',
    );
    expect(redactUrl('/oauth/callback?code=abc&state=s&iss=x')).toBe(
      '/oauth/callback?code=[redacted]&state=[redacted]&iss=x',
    );
    expect(redactUrl('/x?%E0%A4%A=pat_abc')).toBe('/x?[redacted]');
  });

  it('redacts personal data (an address, a search text) and any parameter it does not know', () => {
    expect(redactUrl('/v1/mail/outbox?to=ada%40example.com&limit=5')).toBe(
      '/v1/mail/outbox?to=[redacted]&limit=5',
    );
    expect(redactUrl('/v1/portal-users?q=Ada+Lovelace&status=active')).toBe(
      '/v1/portal-users?q=[redacted]&status=active',
    );
    expect(redactUrl('/v1/audit-events?Q=ada@example.com')).toBe('/v1/audit-events?Q=[redacted]');
    expect(redactUrl('/oauth/authorize?login_hint=ada@example.com&scope=accounts:read')).toBe(
      '/oauth/authorize?login_hint=[redacted]&scope=accounts:read',
    );
    expect(redactUrl('/v1/anything?new_filter=ada@example.com')).toBe(
      '/v1/anything?new_filter=[redacted]',
    );
    expect(redactUrl('/v1/mcp/tool-calls?tool=list_accounts&since=2026-01-01T00:00:00Z')).toBe(
      '/v1/mcp/tool-calls?tool=list_accounts&since=2026-01-01T00:00:00Z',
    );
  });

  it('redacts the invitation token in the accept path, encoded or not', () => {
    expect(redactUrl('/v1/portal-invitations/inv_secret/accept')).toBe(
      '/v1/portal-invitations/[redacted]/accept',
    );
    expect(redactUrl('/v1/Portal%2Dinvitations/inv_secret/accept?limit=1')).toBe(
      '/v1/Portal%2Dinvitations/[redacted]/accept?limit=1',
    );
    expect(redactUrl('/v1/portal-users/123')).toBe('/v1/portal-users/123');
  });
});
