/** How the console writes a full date and time: in the browser's own locale and time zone. */
export const DATE_TIME_PARTS: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
};
const dateTime = new Intl.DateTimeFormat(undefined, DATE_TIME_PARTS);
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/** `3 min ago`, for a timestamp within the last days; the full date otherwise. */
export function ago(iso: string, now = Date.now()): string {
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  const abs = Math.abs(seconds);
  if (abs < 60) return relative.format(seconds, 'second');
  if (abs < 3600) return relative.format(Math.round(seconds / 60), 'minute');
  if (abs < 86_400) return relative.format(Math.round(seconds / 3600), 'hour');
  if (abs < 7 * 86_400) return relative.format(Math.round(seconds / 86_400), 'day');
  return dateTime.format(new Date(iso));
}

export function fullTime(iso: string): string {
  return dateTime.format(new Date(iso));
}

export function duration(ms: number): string {
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(ms < 10 ? 1 : 0)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
}

/** The first block of a UUID: enough to tell rows apart on screen; the whole id is in `title`. */
export function shortId(id: string): string {
  return id.slice(0, 8);
}

/** `<input type="datetime-local">` value (local time) ↔ ISO 8601 UTC for the API. */
export function localInputToIso(value: string): string | undefined {
  if (value === '') return undefined;
  const t = new Date(value);
  return Number.isNaN(t.getTime()) ? undefined : t.toISOString();
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

export function isoToLocalInput(iso: string | undefined): string {
  if (iso === undefined || iso === '') return '';
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return '';
  return `${t.getFullYear()}-${pad(t.getMonth() + 1)}-${pad(t.getDate())}T${pad(t.getHours())}:${pad(t.getMinutes())}`;
}

export function json(value: unknown): string {
  return value === undefined ? '—' : JSON.stringify(value);
}
