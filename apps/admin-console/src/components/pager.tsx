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

/** A cursor stack: page 0 has no cursor; each older page pushes the cursor that reached it. */
export function nextPage(stack: string[], cursor: string): string[] {
  return [...stack, cursor];
}
