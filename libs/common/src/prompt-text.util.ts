/**
 * Invisible and direction-changing characters: every format character (Unicode Cf: the bidi
 * embeddings, overrides and isolates U+202A–202E and U+2066–2069, the marks U+200E/200F/061C,
 * zero-width U+200B–200D, U+2060, U+FEFF, soft hyphen, the tag characters U+E0000–E007F used to
 * smuggle hidden text) and lone surrogates.
 */
const INVISIBLE = /[\p{Cf}\p{Cs}]/gu;
/** C0 and C1 controls that are not line breaks or spacing (those become spaces instead). */
const CONTROL = /(?![\t\n\v\f\r\u0085])\p{Cc}/gu;
/** Any run of whitespace or line breaks (incl. U+0085 NEL, U+2028/2029). */
const SPACING = /[\s\u0085]+/gu;
const ELLIPSIS = '…';

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * Makes record text (names, e-mails) safe to interpolate into a confirmation message: removes
 * control, bidi and zero-width characters, folds every run of whitespace and newlines into one
 * space, trims, and keeps at most `maxLength` code points, cutting between user-perceived
 * characters (never inside a surrogate pair, an emoji sequence or a base + combining mark) and
 * ending with "…" when it cut.
 */
export function sanitizeForPrompt(text: string, maxLength = 120): string {
  if (!Number.isInteger(maxLength) || maxLength < 1)
    throw new RangeError('maxLength must be a positive integer');
  const clean = text.replace(INVISIBLE, '').replace(CONTROL, '').replace(SPACING, ' ').trim();
  // Cheap exit: at most maxLength UTF-16 units is at most maxLength code points.
  if (clean.length <= maxLength) return clean;
  const codePoints = Array.from(clean);
  if (codePoints.length <= maxLength) return clean;

  // Only the first maxLength code points can survive; a boundary there depends only on them.
  const budget = maxLength - 1; // room for the ellipsis
  let kept = '';
  let used = 0;
  for (const { segment } of graphemes.segment(codePoints.slice(0, maxLength).join(''))) {
    const size = Array.from(segment).length;
    if (used + size > budget) break;
    kept += segment;
    used += size;
  }
  return `${kept.trimEnd()}${ELLIPSIS}`;
}
