export { OrgAdminModule } from './org-admin.module.js';
export * from './member.dto.js';
export * from './token.dto.js';
export { ORG_ADMIN_ENDPOINTS } from './org-admin.endpoints.js';
export { tokenCreatedEvent } from './token-audit.js';
