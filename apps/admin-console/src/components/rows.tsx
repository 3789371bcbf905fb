import type { ComponentChildren } from 'preact';
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
