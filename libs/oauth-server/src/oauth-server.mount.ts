import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { OAuthProviderService, OAUTH_MOUNT } from './oauth-provider.service.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;
const DISCOVERY = '/.well-known/openid-configuration';

/**
 * Mounts `oidc-provider` on the Fastify instance: its endpoints under `/oauth` through middie
 * (Nest's `app.use`), and its metadata at the issuer's well-known locations, RFC 8414
 * `/.well-known/oauth-authorization-server` and OpenID `/.well-known/openid-configuration`.
 * The provider is built when the app initialises; the handlers resolve it on first use.
 */
export function mountOAuthServer(app: NestFastifyApplication): void {
  const service = app.get(OAuthProviderService);
  let callback: Handler | undefined;
  const handler = (): Handler => (callback ??= service.provider.callback());

  app.use(OAUTH_MOUNT, (req: IncomingMessage & { originalUrl?: string }, res: ServerResponse) => {
    // The provider derives its endpoint URLs from the mount path it finds in `originalUrl`: the
    // mount as declared, whatever spelling of it (`/OAUTH`, an absolute-form target) matched.
    req.originalUrl = `${OAUTH_MOUNT}${req.url ?? ''}`;
    // A body cut off before the provider could read it: no one is left to answer, and the
    // library would print a plain-text warning about a body it cannot read.
    if (!req.complete && !req.readable) {
      res.destroy();
      return undefined;
    }
    return handler()(req, res);
  });

  const metadata = (request: FastifyRequest, reply: FastifyReply): void => {
    void reply.hijack();
    const raw: IncomingMessage & { originalUrl?: string } = request.raw;
    // As if mounted: the provider derives its endpoint URLs from the mount path.
    raw.originalUrl = `${OAUTH_MOUNT}${DISCOVERY}`;
    raw.url = DISCOVERY;
    void handler()(raw, reply.raw);
  };
  const fastify = app.getHttpAdapter().getInstance();
  fastify.get('/.well-known/oauth-authorization-server', metadata);
  fastify.get(DISCOVERY, metadata);
}
