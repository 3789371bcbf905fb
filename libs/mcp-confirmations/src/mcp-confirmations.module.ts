import { Module } from '@nestjs/common';
import { AppConfig } from '@app/config';
import { ConfirmationLedger } from './confirmation.ledger.js';
import { ConfirmationService } from './confirmation.service.js';
import { RequestStateCodec } from './request-state.codec.js';

/**
 * Confirmation of destructive MCP tools: the ledger (Postgres), the `requestState` codec (keys
 * from `CONFIRMATION_KEYS`) and the service the tool executor calls. Needs the global AppConfig
 * and the app's TypeORM connection.
 */
@Module({
  providers: [
    ConfirmationLedger,
    {
      provide: RequestStateCodec,
      inject: [AppConfig],
      useFactory: (config: AppConfig) => new RequestStateCodec(config.confirmationKeys),
    },
    ConfirmationService,
  ],
  exports: [ConfirmationLedger, RequestStateCodec, ConfirmationService],
})
export class McpConfirmationsModule {}
