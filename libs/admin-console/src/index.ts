export {
  ADMIN_CONSOLE_CSP_DIRECTIVES,
  ADMIN_CONSOLE_PATH,
  defaultAdminConsoleDir,
  registerAdminConsole,
  type AdminConsoleOptions,
} from './admin-console.static.js';
export {
  CONSOLE_CLIENT_NAME,
  CONSOLE_CSRF_HEADER,
  CONSOLE_ORGANIZATION_HEADER,
  CONSOLE_SESSION_SCOPES,
  CONSOLE_SESSIONS,
  ConsoleSessionGuard,
  principalOf,
  type ConsoleSessionMembership,
  type ConsoleSessionPerson,
  type ConsoleSessions,
} from './console-session.guard.js';
export { AdminConsoleModule } from './admin-console.module.js';
