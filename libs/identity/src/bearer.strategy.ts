import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import type { Principal } from './principal.js';
import { TokensService } from './tokens.service.js';

/**
 * passport-http-bearer also reads `access_token` from the query string and the body (RFC 6750
 * §2.2, §2.3); a token in a URL ends up in access logs, proxies and browser history. This one sees
 * the `Authorization` header only (RFC 6750 §2.1, the only way MCP allows).
 */
class AuthorizationHeaderBearerStrategy extends Strategy<VerifyBearer> {
  override authenticate(req: BearerRequest, options?: object): void {
    // The same request, seen without a body or a query string.
    const headerOnly: BearerRequest = Object.create(req, {
      body: { value: undefined },
      query: { value: {} },
    });
    super.authenticate(headerOnly, options);
  }
}

type VerifyBearer = (token: string, done: (error: unknown, user?: unknown) => void) => void;
type BearerRequest = Parameters<Strategy<VerifyBearer>['authenticate']>[0];

@Injectable()
export class BearerStrategy extends PassportStrategy(AuthorizationHeaderBearerStrategy, 'bearer') {
  constructor(private readonly tokens: TokensService) {
    super();
  }

  validate(secret: string): Promise<Principal> {
    return this.tokens.authenticate(secret);
  }
}
