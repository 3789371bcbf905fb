import { Body, Controller, Delete, Get, Param, Post, Query, UsePipes } from '@nestjs/common';
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
  CreatedTokenDto,
  CreateTokenDto,
  ListTokensQueryDto,
  TokenDto,
  TokenIdParamsDto,
  TokenPageDto,
} from './token.dto.js';
import { OrganizationTokensService } from './organization-tokens.service.js';

/** API tokens (human/admin operations, not MCP tools): `org:admin` scope and `admin` permission. */
@ApiTags('tokens')
@ApiBearerAuth()
@UsePipes(ApiValidationPipe)
@Controller('v1/tokens')
export class TokensController {
  constructor(private readonly tokens: OrganizationTokensService) {}

  @Get()
  @RequiresAccess({ scope: { resource: 'org', access: 'admin' }, permission: 'admin' })
  @ApiOperation({
    operationId: 'listTokens',
    summary: 'List the organisation’s tokens (filter with user_id). Never the secrets.',
  })
  @ApiOkResponse({ type: TokenPageDto })
  @ApiErrors('VALIDATION_ERROR', ...AUTH_ERROR_CODES)
  list(@Query() query: ListTokensQueryDto): Promise<Page<Plain<TokenDto>>> {
    return this.tokens.list(query);
  }

  @Post()
  @RequiresAccess({ scope: { resource: 'org', access: 'admin' }, permission: 'admin' })
  @ApiOperation({
    operationId: 'createToken',
    summary:
      'Create a personal token for yourself with chosen scopes (at most your token’s) and expiry (no later than your token’s); the secret is shown once',
  })
  @ApiCreatedResponse({ type: CreatedTokenDto })
  @ApiErrors('VALIDATION_ERROR', ...AUTH_ERROR_CODES)
  create(@Body() body: CreateTokenDto): Promise<Plain<CreatedTokenDto>> {
    return this.tokens.create(body);
  }

  @Delete(':id')
  @RequiresAccess({ scope: { resource: 'org', access: 'admin' }, permission: 'admin' })
  @ApiOperation({ operationId: 'revokeToken', summary: 'Revoke a token (idempotent)' })
  @ApiOkResponse({ type: TokenDto })
  @ApiErrors('VALIDATION_ERROR', 'NOT_FOUND', ...AUTH_ERROR_CODES)
  revoke(@Param() params: TokenIdParamsDto): Promise<Plain<TokenDto>> {
    return this.tokens.revoke(params.id);
  }
}
