import { Body, Controller, Param, Query, UsePipes } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ApiValidationPipe, type ResponsesOf, Endpoint } from '@app/rest-contract';
import {
  AccountIdParamsDto,
  CreateAccountDto,
  ListAccountsQueryDto,
  UpdateAccountDto,
} from './account.dto.js';
import { AccountsService } from './accounts.service.js';
import { ACCOUNTS_ENDPOINTS } from './accounts.endpoints.js';

/** What each endpoint answers, from its contract (the input DTOs are named for the pipe). */
type Responses = ResponsesOf<typeof ACCOUNTS_ENDPOINTS>;

@ApiTags('accounts')
@ApiBearerAuth()
@UsePipes(ApiValidationPipe)
@Controller()
export class AccountsController {
  constructor(private readonly accounts: AccountsService) {}

  @Endpoint(ACCOUNTS_ENDPOINTS.list)
  list(@Query() query: ListAccountsQueryDto): Promise<Responses['list']> {
    return this.accounts.list(query);
  }

  @Endpoint(ACCOUNTS_ENDPOINTS.get)
  get(@Param() params: AccountIdParamsDto): Promise<Responses['get']> {
    return this.accounts.get(params.id);
  }

  @Endpoint(ACCOUNTS_ENDPOINTS.create)
  create(@Body() body: CreateAccountDto): Promise<Responses['create']> {
    return this.accounts.create(body);
  }

  @Endpoint(ACCOUNTS_ENDPOINTS.update)
  update(
    @Param() params: AccountIdParamsDto,
    @Body() body: UpdateAccountDto,
  ): Promise<Responses['update']> {
    return this.accounts.update(params.id, body);
  }

  @Endpoint(ACCOUNTS_ENDPOINTS.delete)
  delete(@Param() params: AccountIdParamsDto): Promise<Responses['delete']> {
    return this.accounts.delete(params.id);
  }
}
