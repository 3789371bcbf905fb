export { PortalUsersModule } from './portal-users.module.js';
export {
  PortalUsersRepository,
  type PortalUserRow,
  type PortalUserValues,
} from './portal-users.repository.js';
export {
  AcceptedInvitationDto,
  CreatePortalUserDto,
  DeletedPortalUserDto,
  ListPortalUsersQueryDto,
  PORTAL_USER_STATUSES,
  PortalUserDto,
  PortalUserIdParamsDto,
  PortalUserPageDto,
  UpdatePortalUserDto,
  type PortalUserStatus,
} from './portal-user.dto.js';
export { PORTAL_USERS_ENDPOINTS } from './portal-users.endpoints.js';
