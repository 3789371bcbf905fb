export { AdminCommandsModule } from './admin-commands.module.js';
export {
  OrganizationSetup,
  type AddedUser,
  type CreatedOrganization,
  type CreatedToken,
} from './organization-setup.service.js';
