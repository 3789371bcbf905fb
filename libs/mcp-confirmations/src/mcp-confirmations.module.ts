import { Module } from '@nestjs/common';
import { AppConfig, serverSecretKeys } from '@app/config';
import { ConfirmationLedger } from './confirmation.ledger.js';
import { ConfirmationService } from './confirmation.service.js';
import { RequestStateCodec } from './request-state.codec.js';
import { VerifiedConfirmationService } from './verified-confirmation.service.js';

/**
 * Confirmation of destructive MCP tools: the ledger (Postgres), the `requestState` codec (keys
 * from `SERVER_SECRET_KEYS`) and {@link ConfirmationService}, the one door into the ledger for every
 * other library (the tool executor, the history writer's transaction, the admin reads), and
 * {@link VerifiedConfirmationService} for questions answered on this server's page. Needs the
 * global AppConfig and the app's TypeORM connection.
 */
@Module({
  providers: [
    ConfirmationLedger,
    {
      provide: RequestStateCodec,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => new RequestStateCodec(serverSecretKeys(config)),
    },
    ConfirmationService,
    {
      provide: VerifiedConfirmationService,
      inject: [ConfirmationLedger, RequestStateCodec, AppConfig],
      useFactory: (ledger: ConfirmationLedger, codec: RequestStateCodec, config: AppConfig) =>
        new VerifiedConfirmationService(ledger, codec, () => config.baseUrl),
    },
  ],
  exports: [RequestStateCodec, ConfirmationService, VerifiedConfirmationService],
})
export class McpConfirmationsModule {}
