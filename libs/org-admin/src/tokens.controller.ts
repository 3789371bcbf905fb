import { Body, Controller, Param, Query, UsePipes } from '@nestjs/common';
import { ApiBearerAuth, ApiTags } from '@nestjs/swagger';
import { ApiValidationPipe, Endpoint, PageQueryDto, type ResponsesOf } from '@app/rest-contract';
import { CreateTokenDto, ListTokensQueryDto, TokenIdParamsDto } from './token.dto.js';
import { OrganizationTokensService } from './organization-tokens.service.js';
import { ORG_ADMIN_ENDPOINTS } from './org-admin.endpoints.js';

/** What each endpoint answers, from its contract (the input DTOs are named for the pipe). */
type Responses = ResponsesOf<typeof ORG_ADMIN_ENDPOINTS>;

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
  list(@Query() query: ListTokensQueryDto): Promise<Responses['listTokens']> {
    return this.tokens.list(query);
  }

  @Endpoint(ORG_ADMIN_ENDPOINTS.createToken)
  create(@Body() body: CreateTokenDto): Promise<Responses['createToken']> {
    return this.tokens.create(body);
  }

  @Endpoint(ORG_ADMIN_ENDPOINTS.revokeToken)
  revoke(@Param() params: TokenIdParamsDto): Promise<Responses['revokeToken']> {
    return this.tokens.revoke(params.id);
  }

  @Endpoint(ORG_ADMIN_ENDPOINTS.listMyTokens)
  listOwn(@Query() query: PageQueryDto): Promise<Responses['listMyTokens']> {
    return this.tokens.listOwn(query);
  }

  @Endpoint(ORG_ADMIN_ENDPOINTS.revokeMyToken)
  revokeOwn(@Param() params: TokenIdParamsDto): Promise<Responses['revokeMyToken']> {
    return this.tokens.revokeOwn(params.id);
  }
}
