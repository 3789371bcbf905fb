export {
  ADMIN_CONSOLE_CSP_DIRECTIVES,
  ADMIN_CONSOLE_PATH,
  defaultAdminConsoleDir,
  registerAdminConsole,
  type AdminConsoleOptions,
} from './admin-console.static.js';
