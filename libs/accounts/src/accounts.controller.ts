import { Body, Controller, Delete, Get, Param, Patch, Post, Query, UsePipes } from '@nestjs/common';
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
  AccountDto,
  AccountIdParamsDto,
  AccountPageDto,
  CreateAccountDto,
  DeletedAccountDto,
  ListAccountsQueryDto,
  UpdateAccountDto,
} from './account.dto.js';
import { AccountsService } from './accounts.service.js';

@ApiTags('accounts')
@ApiBearerAuth()
@UsePipes(ApiValidationPipe)
@Controller('v1/accounts')
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Get()
  @RequiresAccess({ scope: { resource: 'accounts', access: 'read' }, permission: 'accounts.read' })
  @ApiOperation({
    operationId: 'listAccounts',
    summary: 'List customer accounts (newest first, cursor pagination)',
  })
  @ApiOkResponse({ type: AccountPageDto })
  @ApiErrors('VALIDATION_ERROR', ...AUTH_ERROR_CODES)
  list(@Query() query: ListAccountsQueryDto): Promise<Page<Plain<AccountDto>>> {
    return this.accounts.list(query);
  }

  @Get(':id')
  @RequiresAccess({ scope: { resource: 'accounts', access: 'read' }, permission: 'accounts.read' })
  @ApiOperation({ operationId: 'getAccount', summary: 'Get a customer account' })
  @ApiOkResponse({ type: AccountDto })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND', ...AUTH_ERROR_CODES)
  get(@Param() params: AccountIdParamsDto): Promise<Plain<AccountDto>> {
    return this.accounts.get(params.id);
  }

  @Post()
  @RequiresAccess({
    scope: { resource: 'accounts', access: 'write' },
    permission: 'accounts.manage',
  })
  @ApiOperation({ operationId: 'createAccount', summary: 'Create a customer account' })
  @ApiCreatedResponse({ type: AccountDto })
  @ApiErrors('VALIDATION_ERROR', 'CONFLICT', 'DUPLICATE_ERROR', ...AUTH_ERROR_CODES)
  create(@Body() body: CreateAccountDto): Promise<Plain<AccountDto>> {
    return this.accounts.create(body);
  }

  @Patch(':id')
  @RequiresAccess({
    scope: { resource: 'accounts', access: 'write' },
    permission: 'accounts.manage',
  })
  @ApiOperation({
    operationId: 'updateAccount',
    summary: 'Change a customer account (only the fields sent)',
  })
  @ApiOkResponse({ type: AccountDto })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND', 'CONFLICT', 'DUPLICATE_ERROR', ...AUTH_ERROR_CODES)
  update(
    @Param() params: AccountIdParamsDto,
    @Body() body: UpdateAccountDto,
  ): Promise<Plain<AccountDto>> {
    return this.accounts.update(params.id, body);
  }

  @Delete(':id')
  @RequiresAccess({
    scope: { resource: 'accounts', access: 'write' },
    permission: 'accounts.delete',
  })
  @ApiOperation({
    operationId: 'deleteAccount',
    summary:
      'Delete a customer account (refused while it has active portal users; the others are detached)',
  })
  @ApiOkResponse({ type: DeletedAccountDto })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND', 'FORBIDDEN', ...AUTH_ERROR_CODES)
  delete(@Param() params: AccountIdParamsDto): Promise<Plain<DeletedAccountDto>> {
    return this.accounts.delete(params.id);
  }
}
