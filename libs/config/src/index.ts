export { AppConfig, LOG_LEVELS, type LogLevel } from './app.config.js';
export {
  ConfigError,
  ENV_ALIASES,
  ENV_KEYS,
  loadConfig,
  loadDatabaseConfig,
  type DatabaseConfig,
} from './load-config.js';
export { ConfigModule } from './config.module.js';
export { serverSecretKeys } from './server-secret.js';
export { isLoopbackHostname, LOOPBACK_HOSTNAMES, MCP_PATH } from './server-address.js';
