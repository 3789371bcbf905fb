export { HealthModule } from './health.module.js';
export { ShutdownState } from './shutdown.state.js';
