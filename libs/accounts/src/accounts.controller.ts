import { Body, Controller, Param, Query, UsePipes } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ApiValidationPipe, type Page, type Plain, Endpoint } from '@app/rest-contract';
import {
  AccountDto,
  AccountIdParamsDto,
  CreateAccountDto,
  DeletedAccountDto,
  ListAccountsQueryDto,
  UpdateAccountDto,
} from './account.dto.js';
import { AccountsService } from './accounts.service.js';
import { ACCOUNTS_ENDPOINTS } from './accounts.endpoints.js';

@ApiTags('accounts')
@ApiBearerAuth()
@UsePipes(ApiValidationPipe)
@Controller()
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Endpoint(ACCOUNTS_ENDPOINTS.list)
  list(@Query() query: ListAccountsQueryDto): Promise<Page<Plain<AccountDto>>> {
    return this.accounts.list(query);
  }

  @Endpoint(ACCOUNTS_ENDPOINTS.get)
  get(@Param() params: AccountIdParamsDto): Promise<Plain<AccountDto>> {
    return this.accounts.get(params.id);
  }

  @Endpoint(ACCOUNTS_ENDPOINTS.create)
  create(@Body() body: CreateAccountDto): Promise<Plain<AccountDto>> {
    return this.accounts.create(body);
  }

  @Endpoint(ACCOUNTS_ENDPOINTS.update)
  update(
    @Param() params: AccountIdParamsDto,
    @Body() body: UpdateAccountDto,
  ): Promise<Plain<AccountDto>> {
    return this.accounts.update(params.id, body);
  }

  @Endpoint(ACCOUNTS_ENDPOINTS.delete)
  delete(@Param() params: AccountIdParamsDto): Promise<Plain<DeletedAccountDto>> {
    return this.accounts.delete(params.id);
  }
}
