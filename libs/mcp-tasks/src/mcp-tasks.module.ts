import { Module } from '@nestjs/common';
import { TasksRepository } from './tasks.repository.js';

/** The task store (`mcp_tasks`). Needs the app's TypeORM connection. */
@Module({
  providers: [TasksRepository],
  exports: [TasksRepository],
})
export class McpTasksModule {}
