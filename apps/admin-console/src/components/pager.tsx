import { useState } from 'preact/hooks';
/** Newer / older pages over a cursor-paginated list (the API's `next_cursor`). */
export function Pager(props: {
  page: number;
  nextCursor: string | null | undefined;
  onNewer: () => void;
  onOlder: (cursor: string) => void;
}) {
  const next = props.nextCursor;
  if (props.page === 0 && !next) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" onClick={props.onNewer} disabled={props.page === 0}>
        ← Newer
      </button>
      <span class="muted">Page {props.page + 1}</span>
      <button type="button" onClick={() => next && props.onOlder(next)} disabled={!next}>
        Older →
      </button>
    </nav>
  );
}

/** Where a paged list stands, and the {@link Pager} that moves it. */
export interface CursorPages {
  /** The cursor of the page shown; undefined on the newest page. */
  cursor: string | undefined;
  /** 0 on the newest page. */
  page: number;
  /** Back to the newest page (a filter changed). */
  reset: () => void;
  /** The pager's props for a list whose page says `nextCursor`. */
  pager: (nextCursor: string | null | undefined) => Parameters<typeof Pager>[0];
}

/** A cursor stack: page 0 has no cursor; each older page pushes the cursor that reached it. */
export function useCursorPages(): CursorPages {
  const [stack, setStack] = useState<string[]>([]);
  return {
    cursor: stack.at(-1),
    page: stack.length,
    reset: () => setStack([]),
    pager: (nextCursor) => ({
      page: stack.length,
      nextCursor,
      onNewer: () => setStack((s) => s.slice(0, -1)),
      onOlder: (c) => setStack((s) => [...s, c]),
    }),
  };
}
