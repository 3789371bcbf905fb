import { Global, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller.js';
import { SchemaStatus } from './schema-status.js';
import { ShutdownState } from './shutdown.state.js';

@Global()
@Module({
  imports: [TerminusModule.forRoot({ logger: false, errorLogStyle: 'json' })],
  controllers: [HealthController],
  providers: [ShutdownState, SchemaStatus],
  exports: [ShutdownState, SchemaStatus],
})
export class HealthModule {}
