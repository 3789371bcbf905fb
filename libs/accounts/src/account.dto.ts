import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, IsUUID, Matches, MaxLength, MinLength } from 'class-validator';
import { OptionalNotNull, Out, PageQueryDto, Trim } from '@app/rest-contract';

const NAME_MAX = 200;
const EXTERNAL_ID_MAX = 200;
const TAX_ID_MAX = 50;
const TAX_ID_SHAPE = /^[0-9A-Za-z][0-9A-Za-z ./-]*$/;
const TAX_ID_MESSAGE = 'must contain letters and digits (spaces, ".", "/" and "-" allowed)';

export class AccountIdParamsDto {
  @ApiProperty({ format: 'uuid', description: 'Account id.' })
  @IsUUID('all')
  id: string;
}

export class ListAccountsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    description: 'Text contained in the account name (case-insensitive).',
    maxLength: 200,
  })
  @IsOptional()
  @Trim()
  @IsString()
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(200)
  q?: string;
}

export class CreateAccountDto {
  @ApiProperty({ maxLength: NAME_MAX, example: 'Initech' })
  @Trim()
  @IsString()
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(NAME_MAX)
  name: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: EXTERNAL_ID_MAX,
    description: 'Id in an external system (CRM); unique in the organisation (409 CONFLICT).',
  })
  @IsOptional()
  @Trim()
  @IsString()
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(EXTERNAL_ID_MAX)
  external_id?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: TAX_ID_MAX,
    example: '12.345.678/0001-90',
    description:
      'Tax id; unique in the organisation ignoring punctuation and case (409 DUPLICATE_ERROR).',
  })
  @IsOptional()
  @Trim()
  @IsString()
  @MaxLength(TAX_ID_MAX)
  @Matches(TAX_ID_SHAPE, { message: TAX_ID_MESSAGE })
  tax_id?: string | null;
}

/** PATCH: only the fields present change; `null` clears `external_id` / `tax_id`. */
export class UpdateAccountDto {
  @ApiPropertyOptional({ maxLength: NAME_MAX })
  @OptionalNotNull()
  @Trim()
  @IsString()
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(NAME_MAX)
  name?: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: EXTERNAL_ID_MAX,
    description: '`null` clears it.',
  })
  @IsOptional()
  @Trim()
  @IsString()
  @MinLength(1, { message: 'must not be empty' })
  @MaxLength(EXTERNAL_ID_MAX)
  external_id?: string | null;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: TAX_ID_MAX,
    description: '`null` clears it.',
  })
  @IsOptional()
  @Trim()
  @IsString()
  @MaxLength(TAX_ID_MAX)
  @Matches(TAX_ID_SHAPE, { message: TAX_ID_MESSAGE })
  tax_id?: string | null;
}

export class AccountDto {
  @Out.uuid() id: string;
  @Out.string() name: string;
  @Out.string({ nullable: true }) external_id: string | null;
  @Out.string({ nullable: true }) tax_id: string | null;
  @Out.dateTime() created_at: string;
  @Out.dateTime() updated_at: string;
}

export class AccountPageDto {
  @Out.nested(() => AccountDto, { isArray: true }) data: AccountDto[];
  @Out.string({ nullable: true, description: 'Cursor of the next page; `null` on the last page.' })
  next_cursor: string | null;
}

export class DeletedAccountDto {
  @Out.uuid() id: string;
  @Out.constant(true) deleted: true;
}
