export { McpTasksModule } from './mcp-tasks.module.js';
export { TasksRepository } from './tasks.repository.js';
export {
  isTerminal,
  TASK_STATUSES,
  type McpTask,
  type NewTask,
  type TaskError,
  type TaskOwner,
  type TaskStatus,
} from './task.js';
