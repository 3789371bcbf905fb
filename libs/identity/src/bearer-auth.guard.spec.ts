// oxlint-disable typescript/no-unsafe-type-assertion -- test doubles stand in for Nest's execution context and providers
import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { IS_PUBLIC } from '@app/access-vocabulary';
import { AppConfig } from '@app/config';
import { testPrincipal } from '@app/testing';
import { BearerAuthGuard } from './bearer-auth.guard.js';
import { MCP_RESOURCE } from './mcp-resource.decorator.js';
import type { CallerContext, Principal } from './principal.js';
import type { DpopProofVerifier } from './dpop-proof.verifier.js';
import type { RequestContext } from './request-context.js';
import type { TokensService } from './tokens.service.js';

const MCP_URL = 'https://mcp.example.test/mcp';
const config = Object.assign(new AppConfig(), { publicBaseUrl: 'https://mcp.example.test' });

/** What passport would have put on the request for a valid token (`undefined`: no token). */
const passport = vi.spyOn(
  AuthGuard('bearer').prototype as { canActivate: (ctx: ExecutionContext) => Promise<boolean> },
  'canActivate',
);

function setup(opts: { isPublic?: boolean; bySession?: boolean; mcpResource?: boolean } = {}) {
  const callers: CallerContext[] = [];
  const context = {
    authenticatedBySession: () => opts.bySession === true,
    setCaller: (c: CallerContext) => callers.push(c),
  } as unknown as RequestContext;
  const reflector = new Reflector();
  vi.spyOn(reflector, 'getAllAndOverride').mockImplementation((key) =>
    key === IS_PUBLIC
      ? opts.isPublic === true
      : key === MCP_RESOURCE
        ? opts.mcpResource === true
        : undefined,
  );
  // Bearer tokens only here: DPoP-bound tokens and proofs are covered by dpop.integration.spec.ts.
  const guard = new BearerAuthGuard(
    reflector,
    context,
    config,
    Object.create(null) as TokensService,
    Object.create(null) as DpopProofVerifier,
  );
  const run = (
    request: { url: string; headers?: Record<string, string>; user?: Principal },
    user?: Principal,
  ): Promise<boolean> => {
    const headers = request.headers ?? {};
    const req = { id: 'req-1', ...request, headers, raw: { headers } };
    passport.mockImplementation(() => {
      if (user === undefined) return Promise.reject(guard.handleRequest(null, false));
      Object.assign(req, { user });
      return Promise.resolve(true);
    });
    const ctx = {
      getHandler: () => undefined,
      getClass: () => undefined,
      switchToHttp: () => ({ getRequest: () => req }),
    } as unknown as ExecutionContext;
    return guard.canActivate(ctx);
  };
  return { run, callers };
}

afterEach(() => passport.mockReset());

describe('BearerAuthGuard', () => {
  it('lets a public route and a console session through without a token', async () => {
    expect(await setup({ isPublic: true }).run({ url: '/health/live' })).toBe(true);
    expect(await setup({ bySession: true }).run({ url: '/v1/me' })).toBe(true);
    expect(passport).not.toHaveBeenCalled();
  });

  it('without a token the request is UNAUTHENTICATED', async () => {
    const s = setup();
    await expect(s.run({ url: '/v1/accounts' })).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
    });
    expect(s.callers).toEqual([]);
  });

  it('a token becomes the api caller of the request', async () => {
    const s = setup();
    const principal = testPrincipal({ clientName: 'ci' });
    expect(await s.run({ url: '/v1/accounts?limit=5' }, principal)).toBe(true);
    expect(s.callers).toEqual([
      { principal, channel: 'api', clientName: 'ci', confirmationId: null, requestId: 'req-1' },
    ]);
  });

  it('a token issued for the MCP URL works on the route marked as the MCP resource and nowhere else (INVALID_TOKEN)', async () => {
    const oauth = testPrincipal({ tokenKind: 'oauth', audience: MCP_URL });
    const mcp = { mcpResource: true };
    expect(await setup(mcp).run({ url: '/mcp' }, oauth)).toBe(true);
    // The route decides, not the path as spelt.
    expect(await setup(mcp).run({ url: '/%6dcp' }, oauth)).toBe(true);
    await expect(setup().run({ url: '/v1/accounts' }, oauth)).rejects.toMatchObject({
      code: 'INVALID_TOKEN',
    });
    const other = testPrincipal({ tokenKind: 'oauth', audience: 'https://elsewhere.test/mcp' });
    await expect(setup(mcp).run({ url: '/mcp' }, other)).rejects.toMatchObject({
      code: 'INVALID_TOKEN',
    });
  });
});
