/** The longest client-supplied string kept (client name and version, an unknown tool's name). */
export const MAX_CLIENT_STRING_LENGTH = 200;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** Line breaks and spacing (incl. U+0085 NEL, U+2028/2029): each run becomes one space. */
const SPACING = /[\s\u0085]+/gu;
/** The remaining controls (ESC, U+0000, …) and every format character (bidi, zero-width, tags). */
const INVISIBLE = /[\p{Cc}\p{Cf}]/gu;

/**
 * The one normaliser of a string a client chose (an MCP `clientInfo` name and version, a DCR or
 * Client ID Metadata Document `client_name`, a user agent, the name of a tool that does not exist)
 * wherever it is stored, shown or logged: lone surrogates replaced by U+FFFD, line breaks and
 * runs of spacing folded into one space, control and format characters (ESC, U+0000, bidi
 * overrides, zero-width characters) removed, trimmed, at most `max` code points. One line that
 * reads as what it shows, always storable in Postgres `text` and a btree index.
 */
export function normalizeClientString(value: string, max = MAX_CLIENT_STRING_LENGTH): string {
  const clean = value
    .replace(LONE_SURROGATE, '\uFFFD')
    .replace(SPACING, ' ')
    .replace(INVISIBLE, '')
    .replace(/ {2,}/g, ' ')
    .trim();
  if (clean.length <= max) return clean;
  const codePoints = Array.from(clean);
  return codePoints.length <= max ? clean : codePoints.slice(0, max).join('').trimEnd();
}
