export { ME_ENDPOINTS, MeResponse } from './me.controller.js';
export { MeModule } from './me.module.js';
