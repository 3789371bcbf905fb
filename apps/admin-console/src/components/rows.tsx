import type { ComponentChildren, HTMLAttributes } from 'preact';
import type { ApiError } from '../api.js';
import { Loading } from './states.js';

/** A column heading: its text, or its text for screen readers only (e.g. a column of buttons). */
export type Column = string | { label: string; hidden?: boolean; class?: string };

/**
 * A list as the console shows it: a table that scrolls sideways when the screen is narrow (where
 * styles.css turns each row into a card, its cells named by their `data-label`), headed by
 * `columns`; `children` are its rows.
 */
export function RowsTable(props: {
  columns: Column[];
  class?: string;
  children: ComponentChildren;
}) {
  return (
    <div class="table-scroll">
      <table class={props.class === undefined ? 'rows' : `rows ${props.class}`}>
        <thead>
          <tr>
            {props.columns.map((column) => {
              const c = typeof column === 'string' ? { label: column } : column;
              return (
                <th scope="col" class={c.class} key={c.label}>
                  {c.hidden ? <span class="visually-hidden">{c.label}</span> : c.label}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

/** A column of a {@link ListTable}: its heading, and what each row shows in it. */
export interface ListColumn<T> {
  label: string;
  /** Its name on a narrow screen, where each row is a card (the heading by default). */
  cardLabel?: string;
  /** The heading for screen readers only (e.g. a column of buttons): no name on the card. */
  hidden?: boolean;
  /** On the heading and on each cell (e.g. `num`: right-aligned figures). */
  class?: string;
  cell: (row: T) => ComponentChildren;
}

/** A column's `data-label`: its name on a narrow screen, none for a hidden heading. */
export function cardLabelOf(column: Omit<ListColumn<never>, 'cell'>): string {
  return column.hidden ? '' : (column.cardLabel ?? column.label);
}

/**
 * A {@link RowsTable} of `rows`, each column declared once: its heading is also each cell's
 * `data-label`, the name it has on a narrow screen.
 */
export function ListTable<T>(props: {
  columns: ReadonlyArray<ListColumn<T>>;
  rows: readonly T[];
  rowKey: (row: T) => string;
  class?: string;
  /** A row's own attributes (e.g. clickable). */
  rowProps?: (row: T) => HTMLAttributes<HTMLTableRowElement>;
}) {
  return (
    <RowsTable columns={[...props.columns]} class={props.class}>
      {props.rows.map((row) => (
        <tr key={props.rowKey(row)} {...props.rowProps?.(row)}>
          {props.columns.map((c) => (
            <td key={c.label} data-label={cardLabelOf(c)} class={c.class}>
              {c.cell(row)}
            </td>
          ))}
        </tr>
      ))}
    </RowsTable>
  );
}

/**
 * What a loaded list shows: `Loading …` until it has loaded (nothing when the load failed: its
 * ErrorNote speaks), `empty` when it has no row, else what `children` makes of its rows.
 */
export function LoadedRows<T>(props: {
  /** Undefined until loaded. */
  rows: readonly T[] | undefined;
  error: ApiError | undefined;
  what: string;
  empty: ComponentChildren;
  children: (rows: readonly T[]) => ComponentChildren;
}) {
  if (props.rows === undefined) return props.error ? null : <Loading what={props.what} />;
  if (props.rows.length === 0) return <p class="empty">{props.empty}</p>;
  return <>{props.children(props.rows)}</>;
}
