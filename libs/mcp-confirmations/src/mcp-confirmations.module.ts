import { Module } from '@nestjs/common';
import { AuditWriterModule } from '@app/audit-trail';
import { AppConfig, serverSecretKeys } from '@app/config';
import { ConfirmationEvents } from './confirmation-events.js';
import { ConfirmationLedger } from './confirmation.ledger.js';
import { ConfirmationService } from './confirmation.service.js';
import { RequestStateCodec } from './request-state.codec.js';
import { VerifiedConfirmationService } from './verified-confirmation.service.js';

/**
 * Confirmation of destructive MCP tools: the ledger (Postgres), the `requestState` codec (keys
 * from `SERVER_SECRET_KEYS`), the audit events of its changes ({@link ConfirmationEvents}) and
 * {@link ConfirmationService}, the one door into the ledger for every
 * other library (the tool executor, the history writer's transaction, the admin reads), and
 * {@link VerifiedConfirmationService} for questions answered on this server's page. Needs the
 * global AppConfig and the app's TypeORM connection.
 */
@Module({
  imports: [AuditWriterModule],
  providers: [
    ConfirmationLedger,
    ConfirmationEvents,
    {
      provide: RequestStateCodec,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => new RequestStateCodec(serverSecretKeys(config)),
    },
    ConfirmationService,
    {
      provide: VerifiedConfirmationService,
      inject: [ConfirmationLedger, RequestStateCodec, ConfirmationEvents, AppConfig],
      useFactory: (
        ledger: ConfirmationLedger,
        codec: RequestStateCodec,
        events: ConfirmationEvents,
        config: AppConfig,
      ) => new VerifiedConfirmationService(ledger, codec, events, () => config.baseUrl),
    },
  ],
  exports: [RequestStateCodec, ConfirmationService, VerifiedConfirmationService],
})
export class McpConfirmationsModule {}
