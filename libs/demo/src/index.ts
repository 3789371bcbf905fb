export { DemoModule } from './demo.module.js';
export { DemoSeeder, type DemoContentSeeder, type DemoOrganization } from './demo.seeder.js';
export type { DemoTokens, DemoTokenSecrets } from './demo-tokens.js';
