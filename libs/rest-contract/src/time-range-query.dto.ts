import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { PageQueryDto } from './page-query.dto.js';
import { Timestamp } from './timestamp.js';

/**
 * `since` / `until` (and `limit` / `cursor`), shared by every list filtered by time: one strict
 * parser for all of them ({@link Timestamp}).
 */
export class TimeRangeQueryDto extends PageQueryDto {
  @ApiPropertyOptional({
    format: 'date-time',
    description: 'At or after this instant (RFC 3339, e.g. 2026-01-31T09:00:00Z).',
  })
  @IsOptional()
  @Timestamp()
  since?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'Before this instant (RFC 3339, e.g. 2026-01-31T18:00:00Z).',
  })
  @IsOptional()
  @Timestamp()
  until?: string;
}
