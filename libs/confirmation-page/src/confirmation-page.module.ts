import { Module } from '@nestjs/common';
import { AuditWriterModule } from '@app/audit-trail';
import { ConfirmationPolicyReaderModule } from '@app/confirmation-policies';
import { IdentityModule } from '@app/identity';
import { McpConfirmationsModule } from '@app/mcp-confirmations';
import { OAuthServerModule } from '@app/oauth-server';
import { ConfirmationPageController } from './confirmation-page.controller.js';
import { ConfirmationPage } from './confirmation-page.service.js';

/**
 * The page where a `verified` confirmation is answered (`/confirm/:id`), over the person's
 * browser session from the OAuth server's sign-in. Needs the global AppConfig, MetricsService and
 * the app's TypeORM connection.
 */
@Module({
  imports: [
    IdentityModule,
    OAuthServerModule,
    McpConfirmationsModule,
    ConfirmationPolicyReaderModule,
    AuditWriterModule,
  ],
  controllers: [ConfirmationPageController],
  providers: [ConfirmationPage],
})
export class ConfirmationPageModule {}
