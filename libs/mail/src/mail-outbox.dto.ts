import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsOptional } from 'class-validator';
import { Out, PageQueryDto } from '@app/rest-contract';

export class ListOutboxQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    format: 'email',
    description: 'Only messages to this address (case-insensitive).',
  })
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsEmail()
  to?: string;
}

export class OutboxMessageDto {
  @Out.uuid() id: string;
  @Out.email() to: string;
  @Out.string() subject: string;
  @Out.string() text: string;
  @Out.dateTime() created_at: string;
}

export class OutboxMessagePageDto {
  @Out.nested(() => OutboxMessageDto, { isArray: true }) data: OutboxMessageDto[];
  @Out.string({ nullable: true }) next_cursor: string | null;
}
