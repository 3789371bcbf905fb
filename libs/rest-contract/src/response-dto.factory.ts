import type { Type } from '@nestjs/common';
import type { Page } from './cursor.js';
import { Out } from './response-property.decorator.js';

/** What deleting a record answers: its id, and that it is gone. */
export interface Deleted {
  id: string;
  deleted: true;
}

/**
 * The response DTO of a page of `item`s (`data`, `next_cursor`), declared once for every list:
 * `export class AccountPageDto extends PageOf(AccountDto) {}`.
 *
 * The class it returns declares the fields and already bears the subclass's name (`AccountDto` →
 * `AccountPageDto`): class-validator-jsonschema files a schema under the name of the class that
 * declares the properties (a subclass that declares none gets no schema of its own), and the MCP
 * output schemas (`schemaOfDto`) find a DTO's schema by its name; OpenAPI names the schema after
 * the subclass and reads the inherited fields. A subclass named otherwise
 * finds no schema and fails the boot.
 */
export function PageOf<T>(item: Type<T>): Type<Page<T>> {
  class PageDto implements Page<T> {
    @Out.nested(() => item, { isArray: true }) data: T[];
    @Out.nextCursor() next_cursor: string | null;
  }
  return named(PageDto, `${entityOf(item)}PageDto`);
}

/**
 * The response DTO of deleting an `item` (`id`, `deleted: true`), named as its subclass:
 * `export class DeletedAccountDto extends DeletedOf(AccountDto) {}` (see {@link PageOf}).
 */
export function DeletedOf(item: Type): Type<Deleted> {
  class DeletedDto implements Deleted {
    @Out.uuid() id: string;
    @Out.constant(true) deleted: true;
  }
  return named(DeletedDto, `Deleted${entityOf(item)}Dto`);
}

/** `AccountDto` → `Account`. */
function entityOf(item: Type): string {
  if (!item.name.endsWith('Dto'))
    throw new Error(`${item.name}: a response DTO’s name ends in Dto`);
  return item.name.slice(0, -'Dto'.length);
}

function named<C extends Type>(cls: C, name: string): C {
  Object.defineProperty(cls, 'name', { value: name });
  return cls;
}
