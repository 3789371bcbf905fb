import { IsOptional } from 'class-validator';
import { DomainError } from '@app/errors';
import { Input } from './input-property.decorator.js';
import { PageQueryDto } from './page-query.dto.js';
import { Timestamp } from './timestamp.js';

/**
 * `since` / `until` (and `limit` / `cursor`), shared by every list filtered by time: one strict
 * parser for all of them ({@link Timestamp}).
 */
export class TimeRangeQueryDto extends PageQueryDto {
  @Input.optional({
    format: 'date-time',
    description: 'Only entries at or after this instant (RFC 3339, e.g. 2026-01-31T09:00:00Z).',
  })
  @IsOptional()
  @Timestamp()
  since?: string;

  @Input.optional({
    format: 'date-time',
    description: 'Only entries before this instant (RFC 3339, e.g. 2026-01-31T18:00:00Z).',
  })
  @IsOptional()
  @Timestamp()
  until?: string;
}

/** The VALIDATION_ERROR of a time range whose `until` is not after its `since`. */
export function untilNotAfterSince(): DomainError {
  return DomainError.validation(
    [{ field: 'until', message: 'must be after since' }],
    'Validation failed: until must be after since',
  );
}

/** Throws {@link untilNotAfterSince} when both ends are given and `until` is not after `since`. */
export function assertTimeRange(query: { since?: string; until?: string }): void {
  if (
    query.since !== undefined &&
    query.until !== undefined &&
    Date.parse(query.since) >= Date.parse(query.until)
  )
    throw untilNotAfterSince();
}
