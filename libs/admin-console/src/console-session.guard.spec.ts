import type { ExecutionContext } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';
import { describe, expect, it, vi } from 'vitest';
import type { AppConfig } from '@app/config';
import { DomainError } from '@app/errors';
import type { CallerContext, RequestContext } from '@app/identity';
import {
  ConsoleSessionGuard,
  principalOf,
  type ConsoleSessionPerson,
  type ConsoleSessions,
} from './console-session.guard.js';

const ACME = '0b6f1c1e-4b8e-4e53-9a55-2f1f3c1a0001';
const GLOBEX = '0b6f1c1e-4b8e-4e53-9a55-2f1f3c1a0002';
const PERSON: ConsoleSessionPerson = {
  sessionId: '5e55105e-0000-4000-8000-000000000001',
  userId: 'a11ce000-0000-4000-8000-000000000001',
  email: 'alice@acme.test',
  name: 'Alice Admin',
  memberships: [
    {
      membershipId: 'm-acme',
      organizationId: ACME,
      organizationSlug: 'acme',
      role: 'owner',
      status: 'active',
      permissions: ['audit.read', 'admin'],
    },
  ],
};

function harness(opts: { person?: ConsoleSessionPerson | null; csrfOk?: boolean } = {}) {
  let caller: CallerContext | undefined;
  const context = {
    setSessionCaller: (_request: object, c: CallerContext) => {
      caller = c;
    },
  };
  const currentPerson = vi.fn<ConsoleSessions['currentPerson']>(async () =>
    opts.person === undefined ? PERSON : opts.person,
  );
  const csrfValid = vi.fn<ConsoleSessions['csrfValid']>(() => opts.csrfOk ?? true);
  const sessions: ConsoleSessions = { currentPerson, csrfValid };
  const reflector = { getAllAndOverride: () => false };
  const guard = new ConsoleSessionGuard(
    // oxlint-disable-next-line typescript/no-unsafe-type-assertion -- the one Reflector method the guard reads
    reflector as unknown as Reflector,
    // oxlint-disable-next-line typescript/no-unsafe-type-assertion -- the one RequestContext method the guard calls
    context as unknown as RequestContext,
    sessions,
    // oxlint-disable-next-line typescript/no-unsafe-type-assertion, typescript/no-unsafe-class-instance-assignment -- only baseUrl is read
    { baseUrl: 'http://127.0.0.1:3000' } as AppConfig,
  );
  const run = (headers: Record<string, string>): Promise<boolean> => {
    const request = { headers, id: 'req-1' };
    const ctx = {
      getHandler: () => undefined,
      getClass: () => undefined,
      switchToHttp: () => ({ getRequest: () => request }),
    };
    // oxlint-disable-next-line typescript/no-unsafe-type-assertion -- the parts of the execution context the guard reads
    return guard.canActivate(ctx as unknown as ExecutionContext);
  };
  return { run, currentPerson, caller: () => caller };
}

const CONSOLE = {
  'x-csrf-token': 'tok',
  'sec-fetch-site': 'same-origin',
  cookie: 'platform_session=s',
};

describe('ConsoleSessionGuard', () => {
  it('authenticates a same-origin console request as the person, with the console scopes', async () => {
    const h = harness();
    await expect(h.run(CONSOLE)).resolves.toBe(true);
    expect(h.caller()).toMatchObject({
      channel: 'api',
      clientName: 'Admin console',
      principal: {
        tokenId: PERSON.sessionId,
        tokenKind: 'session',
        scopes: ['audit:read'],
        organizationId: ACME,
        userId: PERSON.userId,
        membership: { status: 'active', permissions: ['audit.read', 'admin'] },
      },
    });
  });

  it('leaves bearer requests and requests without the CSRF header to the bearer guard', async () => {
    for (const headers of [
      { authorization: 'Bearer pat_x', ...CONSOLE },
      { cookie: 'platform_session=s' },
    ]) {
      const h = harness();
      await expect(h.run(headers)).resolves.toBe(true);
      expect(h.caller()).toBeUndefined();
      expect(h.currentPerson).not.toHaveBeenCalled();
    }
  });

  it('refuses another origin, even with a valid token', async () => {
    for (const headers of [
      { ...CONSOLE, 'sec-fetch-site': 'cross-site' },
      { ...CONSOLE, 'sec-fetch-site': 'same-site' },
      { ...CONSOLE, origin: 'http://evil.test' },
    ]) {
      const h = harness();
      await expect(h.run(headers)).rejects.toMatchObject({ code: 'FORBIDDEN' });
      expect(h.caller()).toBeUndefined();
    }
  });

  it('refuses a wrong CSRF token', async () => {
    const h = harness({ csrfOk: false });
    await expect(h.run(CONSOLE)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(h.currentPerson).not.toHaveBeenCalled();
  });

  it('answers UNAUTHENTICATED when the session has ended', async () => {
    const h = harness({ person: null });
    await expect(h.run(CONSOLE)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});

describe('principalOf', () => {
  const two: ConsoleSessionPerson = {
    ...PERSON,
    memberships: [
      ...PERSON.memberships,
      {
        ...PERSON.memberships[0],
        membershipId: 'm-globex',
        organizationId: GLOBEX,
        status: 'inactive',
      },
    ],
  };

  it('uses the organisation the console names', () => {
    expect(principalOf(two, GLOBEX)).toMatchObject({
      organizationId: GLOBEX,
      membership: { id: 'm-globex', status: 'inactive' },
    });
  });

  it('asks which organisation when the person has several and none is named', () => {
    expect(() => principalOf(two, undefined)).toThrow(DomainError);
    expect(() => principalOf(two, undefined)).toThrow(/x-organization-id/);
  });

  it('is key_owner_not_member for an organisation the person is not in', () => {
    expect(() => principalOf(PERSON, GLOBEX)).toThrow(
      expect.objectContaining({ code: 'key_owner_not_member' }),
    );
  });
});
