import { Module } from '@nestjs/common';
import { ToolCallHistory } from './tool-call.history.js';

/**
 * The history writer alone: {@link ToolCallHistory}, what the tool executor needs to write one row
 * per call. The admin API that reads the history is {@link McpHistoryModule}, which the app wires
 * and the executor never imports. Needs the global metrics and the app's TypeORM connection.
 */
@Module({
  providers: [ToolCallHistory],
  exports: [ToolCallHistory],
})
export class ToolCallHistoryModule {}
