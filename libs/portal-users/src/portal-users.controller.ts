import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Query,
  UsePipes,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { RequiresAccess } from '@app/access';
import {
  ApiErrors,
  ApiValidationPipe,
  AUTH_ERROR_CODES,
  type Page,
  type Plain,
} from '@app/rest-contract';
import {
  CreatePortalUserDto,
  DeletedPortalUserDto,
  ListPortalUsersQueryDto,
  PortalUserDto,
  PortalUserIdParamsDto,
  PortalUserPageDto,
  UpdatePortalUserDto,
} from './portal-user.dto.js';
import { PortalUsersService } from './portal-users.service.js';

@ApiTags('portal users')
@ApiBearerAuth()
@UsePipes(ApiValidationPipe)
@Controller('v1/portal-users')
export class PortalUsersController {
  constructor(private readonly portalUsers: PortalUsersService) {}

  @Get()
  @RequiresAccess({
    scope: { resource: 'portal_users', access: 'read' },
    permission: 'portal_users.read',
  })
  @ApiOperation({
    operationId: 'listPortalUsers',
    summary: 'List portal users (newest first, cursor pagination)',
  })
  @ApiOkResponse({ type: PortalUserPageDto })
  @ApiErrors('VALIDATION_ERROR', ...AUTH_ERROR_CODES)
  list(@Query() query: ListPortalUsersQueryDto): Promise<Page<Plain<PortalUserDto>>> {
    return this.portalUsers.list(query);
  }

  @Get(':id')
  @RequiresAccess({
    scope: { resource: 'portal_users', access: 'read' },
    permission: 'portal_users.read',
  })
  @ApiOperation({ operationId: 'getPortalUser', summary: 'Get a portal user' })
  @ApiOkResponse({ type: PortalUserDto })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND', ...AUTH_ERROR_CODES)
  get(@Param() params: PortalUserIdParamsDto): Promise<Plain<PortalUserDto>> {
    return this.portalUsers.get(params.id);
  }

  @Post()
  @RequiresAccess({
    scope: { resource: 'portal_users', access: 'write' },
    permission: 'portal_users.manage',
  })
  @ApiOperation({
    operationId: 'createPortalUser',
    summary:
      'Create a portal user (status invited) and e-mail the invitation unless send_invitation is false',
  })
  @ApiCreatedResponse({ type: PortalUserDto })
  @ApiErrors(
    'VALIDATION_ERROR',
    'CONFLICT',
    'DUPLICATE_ERROR',
    'EXTERNAL_SERVICE_ERROR',
    ...AUTH_ERROR_CODES,
  )
  create(@Body() body: CreatePortalUserDto): Promise<Plain<PortalUserDto>> {
    return this.portalUsers.create(body);
  }

  @Patch(':id')
  @RequiresAccess({
    scope: { resource: 'portal_users', access: 'write' },
    permission: 'portal_users.manage',
  })
  @ApiOperation({
    operationId: 'updatePortalUser',
    summary: 'Change a portal user (only the fields sent)',
  })
  @ApiOkResponse({ type: PortalUserDto })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND', 'CONFLICT', 'DUPLICATE_ERROR', ...AUTH_ERROR_CODES)
  update(
    @Param() params: PortalUserIdParamsDto,
    @Body() body: UpdatePortalUserDto,
  ): Promise<Plain<PortalUserDto>> {
    return this.portalUsers.update(params.id, body);
  }

  @Post(':id/invitation')
  @HttpCode(200)
  @RequiresAccess({
    scope: { resource: 'portal_users', access: 'write' },
    permission: 'portal_users.invite',
  })
  @ApiOperation({
    operationId: 'resendPortalUserInvitation',
    summary: 'E-mail a new invitation to an invited portal user (the previous link stops working)',
  })
  @ApiOkResponse({ type: PortalUserDto })
  @ApiErrors(
    'VALIDATION_ERROR',
    'NOT_FOUND',
    'BAD_REQUEST',
    'EXTERNAL_SERVICE_ERROR',
    ...AUTH_ERROR_CODES,
  )
  resendInvitation(@Param() params: PortalUserIdParamsDto): Promise<Plain<PortalUserDto>> {
    return this.portalUsers.resendInvitation(params.id);
  }

  @Post(':id/deactivate')
  @HttpCode(200)
  @RequiresAccess({
    scope: { resource: 'portal_users', access: 'write' },
    permission: 'portal_users.manage',
  })
  @ApiOperation({
    operationId: 'deactivatePortalUser',
    summary:
      'Deactivate an active portal user (idempotent; refused for one who never accepted the invitation)',
  })
  @ApiOkResponse({ type: PortalUserDto })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND', 'FORBIDDEN', ...AUTH_ERROR_CODES)
  deactivate(@Param() params: PortalUserIdParamsDto): Promise<Plain<PortalUserDto>> {
    return this.portalUsers.deactivate(params.id);
  }

  @Post(':id/activate')
  @HttpCode(200)
  @RequiresAccess({
    scope: { resource: 'portal_users', access: 'write' },
    permission: 'portal_users.manage',
  })
  @ApiOperation({
    operationId: 'activatePortalUser',
    summary:
      'Reactivate an inactive portal user (idempotent; invited ones activate by accepting the invitation)',
  })
  @ApiOkResponse({ type: PortalUserDto })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND', 'FORBIDDEN', ...AUTH_ERROR_CODES)
  activate(@Param() params: PortalUserIdParamsDto): Promise<Plain<PortalUserDto>> {
    return this.portalUsers.activate(params.id);
  }

  @Delete(':id')
  @RequiresAccess({
    scope: { resource: 'portal_users', access: 'write' },
    permission: 'portal_users.delete',
  })
  @ApiOperation({ operationId: 'deletePortalUser', summary: 'Delete a portal user' })
  @ApiOkResponse({ type: DeletedPortalUserDto })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND', ...AUTH_ERROR_CODES)
  delete(@Param() params: PortalUserIdParamsDto): Promise<Plain<DeletedPortalUserDto>> {
    return this.portalUsers.delete(params.id);
  }
}
