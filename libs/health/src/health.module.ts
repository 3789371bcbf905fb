import { Global, Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller.js';
import { ShutdownState } from './shutdown.state.js';

@Global()
@Module({
  imports: [TerminusModule.forRoot({ logger: false, errorLogStyle: 'json' })],
  controllers: [HealthController],
  providers: [ShutdownState],
  exports: [ShutdownState],
})
export class HealthModule {}
