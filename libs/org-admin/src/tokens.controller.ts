import { Body, Controller, Param, Query, UsePipes } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import {
  ApiValidationPipe,
  Endpoint,
  PageQueryDto,
  type Page,
  type Plain,
} from '@app/rest-contract';
import {
  CreatedTokenDto,
  CreateTokenDto,
  ListTokensQueryDto,
  TokenDto,
  TokenIdParamsDto,
} from './token.dto.js';
import { OrganizationTokensService } from './organization-tokens.service.js';
import { ORG_ADMIN_ENDPOINTS } from './org-admin.endpoints.js';

/**
 * API tokens (human/admin operations, not MCP tools): the organisation's need `org:admin` scope and
 * `admin` permission; a person's own (`/v1/me/tokens`) need only a valid token of theirs.
 */
@ApiTags('tokens')
@ApiBearerAuth()
@UsePipes(ApiValidationPipe)
@Controller()
export class TokensController {
  constructor(private readonly tokens: OrganizationTokensService) {}

  @Endpoint(ORG_ADMIN_ENDPOINTS.listTokens)
  list(@Query() query: ListTokensQueryDto): Promise<Page<Plain<TokenDto>>> {
    return this.tokens.list(query);
  }

  @Endpoint(ORG_ADMIN_ENDPOINTS.createToken)
  create(@Body() body: CreateTokenDto): Promise<Plain<CreatedTokenDto>> {
    return this.tokens.create(body);
  }

  @Endpoint(ORG_ADMIN_ENDPOINTS.revokeToken)
  revoke(@Param() params: TokenIdParamsDto): Promise<Plain<TokenDto>> {
    return this.tokens.revoke(params.id);
  }

  @Endpoint(ORG_ADMIN_ENDPOINTS.listMyTokens)
  listOwn(@Query() query: PageQueryDto): Promise<Page<Plain<TokenDto>>> {
    return this.tokens.listOwn(query);
  }

  @Endpoint(ORG_ADMIN_ENDPOINTS.revokeMyToken)
  revokeOwn(@Param() params: TokenIdParamsDto): Promise<Plain<TokenDto>> {
    return this.tokens.revokeOwn(params.id);
  }
}
