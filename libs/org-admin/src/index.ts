export { OrgAdminModule } from './org-admin.module.js';
export {
  ListMembersQueryDto,
  MemberDto,
  MemberPageDto,
  MemberUserIdParamsDto,
  UpdateMemberDto,
} from './member.dto.js';
export {
  CreatedTokenDto,
  CreateTokenDto,
  ListTokensQueryDto,
  TOKEN_STATUSES,
  TokenDto,
  TokenIdParamsDto,
  TokenPageDto,
  type TokenStatus,
} from './token.dto.js';
export { ORG_ADMIN_ENDPOINTS } from './org-admin.endpoints.js';
