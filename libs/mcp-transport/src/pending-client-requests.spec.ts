import { describe, expect, it } from 'vitest';
import { ClientRequestFailed, PendingClientRequests } from './pending-client-requests.js';

describe('PendingClientRequests', () => {
  it('hands a result to the waiting call once, only from its owner', async () => {
    const pending = new PendingClientRequests(5_000);
    const { id, result } = pending.open('token-a');
    expect(pending.settle('token-b', id, { ok: true }, undefined)).toBe('unknown');
    expect(pending.settle('token-a', id, { ok: true }, undefined)).toBe('settled');
    await expect(result).resolves.toEqual({ ok: true });
    expect(pending.settle('token-a', id, { ok: true }, undefined)).toBe('unknown');
    expect(pending.size).toBe(0);
  });

  it('ids are random and not numbers a client could guess', () => {
    const pending = new PendingClientRequests(5_000);
    const ids = new Set(Array.from({ length: 50 }, () => pending.open('a').id));
    expect(ids.size).toBe(50);
    for (const id of ids) expect(id).toMatch(/^srv-[0-9a-f-]{36}$/);
    expect(pending.settle('a', 1, {}, undefined)).toBe('unknown');
  });

  it('a JSON-RPC error or a result that is not an object fails the call', async () => {
    const pending = new PendingClientRequests(5_000);
    const a = pending.open('o');
    pending.settle('o', a.id, undefined, { code: -32601, message: 'Method not found' });
    await expect(a.result).rejects.toMatchObject({
      message: 'The client answered with error -32601: Method not found',
      error: { code: -32601 },
    });
    const b = pending.open('o');
    pending.settle('o', b.id, 'yes', undefined);
    await expect(b.result).rejects.toBeInstanceOf(ClientRequestFailed);
  });

  it('bounds how many calls may wait, and forgets abandoned ones', async () => {
    const pending = new PendingClientRequests(5_000, 2);
    const first = pending.open('o');
    pending.open('o');
    await expect(pending.open('o').result).rejects.toThrow(/Too many requests/);
    pending.abandon(first.id, 'gone');
    await expect(first.result).rejects.toThrow('gone');
    expect(pending.size).toBe(1);
    expect(pending.open('o').id).not.toBe('');
  });
});
