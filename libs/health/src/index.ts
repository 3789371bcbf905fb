export { HealthModule } from './health.module.js';
export { SchemaStatus, type SchemaCheck } from './schema-status.js';
export { ShutdownState } from './shutdown.state.js';
export {
  InFlightResponses,
  MAX_DRAIN_DELAY_MS,
  drainAndClose,
  shutdownPhases,
  type GracefulShutdownLogger,
  type GracefulShutdownTarget,
} from './graceful-shutdown.js';
