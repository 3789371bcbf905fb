import { Module } from '@nestjs/common';
import { IdentityModule } from '@app/identity';
import { OAuthServerModule, PersonSessionService } from '@app/oauth-server';
import { CONSOLE_SESSIONS, ConsoleSessionGuard } from './console-session.guard.js';

/**
 * The admin console's server side: {@link ConsoleSessionGuard} (registered by the app module as a
 * global guard before the bearer guard) over the person's browser session from the OAuth
 * server's sign-in. The pages themselves are static files ({@link registerAdminConsole}).
 */
@Module({
  imports: [IdentityModule, OAuthServerModule],
  providers: [
    ConsoleSessionGuard,
    { provide: CONSOLE_SESSIONS, useExisting: PersonSessionService },
  ],
  exports: [ConsoleSessionGuard],
})
export class AdminConsoleModule {}
