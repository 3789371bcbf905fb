import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayUnique, IsArray, IsIn, IsOptional, IsUUID } from 'class-validator';
import { SCOPES, type Scope, type TokenKind } from '@app/access-vocabulary';
import { Input, Out, PageOf, PageQueryDto, Timestamp } from '@app/rest-contract';

export const TOKEN_STATUSES = ['active', 'expired', 'revoked'] as const;
export type TokenStatus = (typeof TOKEN_STATUSES)[number];

export class TokenIdParamsDto {
  @ApiProperty({ format: 'uuid', description: 'Token id.' })
  @IsUUID('all')
  id: string;
}

export class ListTokensQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    format: 'uuid',
    description:
      'Only this person’s tokens (default: everyone’s). Your own tokens, whatever your role: GET /v1/me/tokens.',
  })
  @IsOptional()
  @IsUUID('all')
  user_id?: string;
}

export class CreateTokenDto {
  @Input.requiredText({
    maxLength: 100,
    example: 'CI pipeline',
    description: 'A name to recognise the token by, in the token list and the audit trail.',
  })
  name: string;

  @ApiProperty({
    enum: SCOPES,
    isArray: true,
    description: 'At most the scopes of the token making the request.',
  })
  @IsArray()
  @ArrayUnique({ message: 'must not repeat a scope' })
  @IsIn(SCOPES, { each: true })
  scopes: Scope[];

  @ApiPropertyOptional({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'Omit (or null) for a token that does not expire.',
  })
  @IsOptional()
  @Timestamp()
  expires_at?: string | null;
}

export class TokenDto {
  @Out.uuid() id: string;
  @Out.enum(['personal', 'oauth']) kind: TokenKind;
  @Out.string() name: string;
  @Out.string({ nullable: true, description: 'The MCP client an OAuth token was issued to.' })
  client_name: string | null;
  @Out.uuid({ description: 'The person the token acts as.' }) user_id: string;
  @Out.string({ description: 'The first characters of the secret, to recognise it.' })
  token_prefix: string;
  @Out.enumArray(SCOPES) scopes: Scope[];
  @Out.enum(TOKEN_STATUSES) status: TokenStatus;
  @Out.dateTime({ nullable: true }) expires_at: string | null;
  @Out.dateTime({ nullable: true }) revoked_at: string | null;
  @Out.dateTime({ nullable: true }) last_used_at: string | null;
  @Out.dateTime() created_at: string;
}

/** A new token: the only response that ever carries the secret. */
export class CreatedTokenDto extends TokenDto {
  @Out.string({
    description: 'The bearer secret. Shown once: store it now; only its hash is kept.',
  })
  secret: string;
}

export class TokenPageDto extends PageOf(TokenDto) {}
