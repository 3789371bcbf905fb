export { AccountsModule } from './accounts.module.js';
export { AccountsRepository, type AccountRow, type AccountValues } from './accounts.repository.js';
export * from './account.dto.js';
export { ACCOUNTS_ENDPOINTS } from './accounts.endpoints.js';
