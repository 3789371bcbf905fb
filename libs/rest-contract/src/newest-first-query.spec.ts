import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './cursor.js';
import {
  contains,
  equals,
  listedAs,
  listedPage,
  newestFirstPage,
  newestFirstQuery,
  readListedPage,
  readNewestFirstPage,
  type PageWindow,
} from './newest-first-query.js';

const ORG = '00000000-0000-4000-8000-000000000001';

describe('newestFirstQuery', () => {
  it('binds every filter and the keyset, newest first by created_at', () => {
    // A repository hands its list filter over whole: only the window's fields are read from it.
    const filter = { status: 'active', after: ['2026-12-01T10:00:00.123456Z', ORG], take: 21 };
    const q = newestFirstQuery({
      from: 'accounts',
      columns: 'id, name',
      organizationId: ORG,
      conditions: [
        equals('status', filter.status),
        undefined,
        contains(['name', 'email'], '50%_x'),
      ],
      window: filter,
    });
    expect(q.text.replace(/\s+/g, ' ')).toBe(
      'SELECT id, name, to_char(created_at AT TIME ZONE \'UTC\', \'YYYY-MM-DD"T"HH24:MI:SS.US"Z"\') AS cursor_ts ' +
        'FROM accounts WHERE organization_id = $1::uuid AND status = $2 AND (name ILIKE $3 OR email ILIKE $3) ' +
        'AND (created_at, id) < ($4::timestamptz, $5::uuid) ORDER BY created_at DESC, id DESC LIMIT $6',
    );
    expect(q.params).toEqual([
      ORG,
      'active',
      '%50\\%\\_x%',
      '2026-12-01T10:00:00.123456Z',
      ORG,
      21,
    ]);
  });

  it('sorts, bounds and pages by another timestamp when asked', () => {
    const q = newestFirstQuery({
      from: 'audit_events',
      columns: 'id',
      sortColumn: 'occurred_at',
      organizationId: ORG,
      conditions: [contains(['search_text'], 'ana')],
      window: { since: '2026-01-01T00:00:00Z', until: '2026-02-01T00:00:00Z', take: 5 },
    });
    const text = q.text.replace(/\s+/g, ' ');
    expect(text).toContain(
      'search_text ILIKE $2 AND occurred_at >= $3::timestamptz AND occurred_at < $4::timestamptz',
    );
    expect(text).toContain('ORDER BY occurred_at DESC, id DESC LIMIT $5');
    expect(text).not.toContain('created_at');
  });
});

describe('newestFirstPage', () => {
  const rows = ['a', 'b', 'c'].map((name, i) => ({
    id: `00000000-0000-4000-8000-00000000000${i}`,
    cursor_ts: `2026-12-01T10:00:0${i}.000000Z`,
    name,
  }));

  it('shows `limit` rows and points the next page at the last one shown', () => {
    const page = newestFirstPage(rows, 2, (r) => r.name);
    expect(page.data).toEqual(['a', 'b']);
    expect(decodeCursor(page.next_cursor ?? '')).toEqual([rows[1].cursor_ts, rows[1].id]);
  });

  it('has no next page when the extra row did not come', () => {
    expect(newestFirstPage(rows, 3, (r) => r.name).next_cursor).toBeNull();
  });
});

describe('listedAs and listedPage', () => {
  const rows = ['a', 'b', 'c'].map((name, i) => ({
    id: `00000000-0000-4000-8000-00000000000${i}`,
    cursor_ts: `2026-12-01T10:00:0${i}.000000Z`,
    name,
  }));
  const listed = listedAs(rows, (r) => ({ id: r.id, label: r.name.toUpperCase() }));

  it('maps each row to its record and keeps its cursor_ts beside it', () => {
    expect(listed[2]).toEqual({
      record: { id: rows[2].id, label: 'C' },
      cursorTs: rows[2].cursor_ts,
    });
  });

  it('pages the records like newestFirstPage pages the rows', () => {
    const page = listedPage(listed, 2, (r) => r.label);
    expect(page.data).toEqual(['A', 'B']);
    expect(page.next_cursor).toBe(newestFirstPage(rows, 2, (r) => r.name).next_cursor);
    expect(decodeCursor(page.next_cursor ?? '')).toEqual([rows[1].cursor_ts, rows[1].id]);
    expect(listedPage(listed, 3, (r) => r.label).next_cursor).toBeNull();
  });
});

describe('readNewestFirstPage and readListedPage', () => {
  const rows = ['a', 'b', 'c', 'd'].map((name, i) => ({
    id: `00000000-0000-4000-8000-00000000000${i}`,
    cursor_ts: `2026-12-01T10:00:0${i}.000000Z`,
    name,
  }));

  it('reads one row more than the page, after the cursor, and pages by the same limit', async () => {
    const windows: PageWindow[] = [];
    const cursor = encodeCursor([rows[0].cursor_ts, rows[0].id]);
    const read = (window: PageWindow): Promise<typeof rows> => {
      windows.push(window);
      return Promise.resolve(rows.slice(1, 1 + window.take));
    };
    const page = await readNewestFirstPage({ limit: 2, cursor }, read, (r) => r.name);
    expect(windows).toEqual([{ after: [rows[0].cursor_ts, rows[0].id], take: 3 }]);
    expect(page).toEqual(newestFirstPage(rows.slice(1), 2, (r) => r.name));
    expect(page.data).toEqual(['b', 'c']);

    const listed = await readListedPage(
      { limit: 2, cursor },
      async (window) => listedAs(await read(window), (r) => ({ id: r.id, label: r.name })),
      (r) => r.label,
    );
    expect(listed).toEqual(page);
  });

  it('reads the default page size from the start when the query names neither', async () => {
    const windows: PageWindow[] = [];
    await readNewestFirstPage(
      {},
      (window) => {
        windows.push(window);
        return Promise.resolve(rows);
      },
      (r) => r.name,
    );
    expect(windows).toEqual([{ after: undefined, take: 21 }]);
  });
});
