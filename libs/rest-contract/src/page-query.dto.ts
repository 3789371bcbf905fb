import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { Input } from './input-property.decorator.js';

export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

/** `limit` and `cursor`, shared by every list endpoint (extend it with the endpoint's filters). */
export class PageQueryDto {
  @Input.optional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE_LIMIT,
    default: DEFAULT_PAGE_LIMIT,
    description: `How many records to return, 1 to ${MAX_PAGE_LIMIT}; ${DEFAULT_PAGE_LIMIT} when left out.`,
  })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_LIMIT)
  limit?: number;

  @Input.optional({
    description:
      'Leave out for the first page; for the next one pass the next_cursor of the previous page unchanged.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  cursor?: string;
}
