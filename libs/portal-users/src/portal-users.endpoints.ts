import type { EndpointContract } from '@app/rest-contract';
import {
  AcceptedInvitationDto,
  CreatePortalUserDto,
  DeletedPortalUserDto,
  ListPortalUsersQueryDto,
  PortalUserDto,
  PortalUserIdParamsDto,
  PortalUserPageDto,
  UpdatePortalUserDto,
} from './portal-user.dto.js';

/** The portal-user REST endpoints and the DTO classes of their input and output. */
export const PORTAL_USERS_ENDPOINTS = {
  list: {
    method: 'GET',
    path: '/v1/portal-users',
    status: 200,
    query: ListPortalUsersQueryDto,
    response: PortalUserPageDto,
  },
  get: {
    method: 'GET',
    path: '/v1/portal-users/:id',
    status: 200,
    params: PortalUserIdParamsDto,
    response: PortalUserDto,
  },
  create: {
    method: 'POST',
    path: '/v1/portal-users',
    status: 201,
    body: CreatePortalUserDto,
    response: PortalUserDto,
  },
  update: {
    method: 'PATCH',
    path: '/v1/portal-users/:id',
    status: 200,
    params: PortalUserIdParamsDto,
    body: UpdatePortalUserDto,
    response: PortalUserDto,
  },
  resendInvitation: {
    method: 'POST',
    path: '/v1/portal-users/:id/invitation',
    status: 200,
    params: PortalUserIdParamsDto,
    response: PortalUserDto,
  },
  deactivate: {
    method: 'POST',
    path: '/v1/portal-users/:id/deactivate',
    status: 200,
    params: PortalUserIdParamsDto,
    response: PortalUserDto,
  },
  activate: {
    method: 'POST',
    path: '/v1/portal-users/:id/activate',
    status: 200,
    params: PortalUserIdParamsDto,
    response: PortalUserDto,
  },
  delete: {
    method: 'DELETE',
    path: '/v1/portal-users/:id',
    status: 200,
    params: PortalUserIdParamsDto,
    response: DeletedPortalUserDto,
  },
  acceptInvitation: {
    method: 'POST',
    path: '/v1/portal-invitations/:token/accept',
    status: 200,
    response: AcceptedInvitationDto,
  },
} as const satisfies Record<string, EndpointContract>;
