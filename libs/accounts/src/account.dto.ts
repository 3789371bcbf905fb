import { applyDecorators } from '@nestjs/common';
import { IsOptional, IsString, IsUUID, Matches, MaxLength } from 'class-validator';
import { DeletedOf, ExternalId, Input, Out, PageOf, PageQueryDto, Trim } from '@app/rest-contract';

const NAME_MAX = 200;
const TAX_ID_MAX = 50;
const TAX_ID_SHAPE = /^[0-9A-Za-z][0-9A-Za-z ./-]*$/;
const TAX_ID_MESSAGE = 'must contain letters and digits (spaces, ".", "/" and "-" allowed)';

/**
 * The rules of a tax id, created or changed: optional (`null` clears it), trimmed, a string of
 * at most TAX_ID_MAX characters, letters and digits with spaces, ".", "/" and "-". Listed in the
 * reverse of reading order, as stacked decorators register, so the errors keep their order.
 */
function TaxId(): PropertyDecorator {
  return applyDecorators(
    Matches(TAX_ID_SHAPE, { message: TAX_ID_MESSAGE }),
    MaxLength(TAX_ID_MAX),
    IsString(),
    Trim(),
    IsOptional(),
  );
}

export class AccountIdParamsDto {
  @Input.required({
    format: 'uuid',
    description: 'The account’s id (a uuid), as list_accounts returns it.',
  })
  @IsUUID('all')
  id: string;
}

export class ListAccountsQueryDto extends PageQueryDto {
  @Input.optionalText({
    maxLength: 200,
    description: 'Only accounts whose name contains this text, ignoring case.',
  })
  q?: string;
}

export class CreateAccountDto {
  @Input.requiredText({
    maxLength: NAME_MAX,
    example: 'Initech',
    description: 'The company’s name.',
  })
  name: string;

  @ExternalId.create('The company’s')
  external_id?: string | null;

  @Input.optional({
    type: String,
    nullable: true,
    maxLength: TAX_ID_MAX,
    example: '12.345.678/0001-90',
    description:
      'The company’s tax id (letters, digits, spaces, . / -); unique ignoring punctuation and case (else DUPLICATE_ERROR).',
  })
  @TaxId()
  tax_id?: string | null;
}

/** PATCH: only the fields present change; `null` clears `external_id` / `tax_id`. */
export class UpdateAccountDto {
  @Input.optionalText({ maxLength: NAME_MAX, description: 'New company name.' })
  name?: string;

  @ExternalId.update()
  external_id?: string | null;

  @Input.optional({
    type: String,
    nullable: true,
    maxLength: TAX_ID_MAX,
    description: 'New tax id, unique in the organisation; null clears it.',
  })
  @TaxId()
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

export class AccountPageDto extends PageOf(AccountDto) {}

export class DeletedAccountDto extends DeletedOf(AccountDto) {}
