/** A parsed `application/x-www-form-urlencoded` body: a repeated name keeps every value. */
export type FormFields = Record<string, string | string[]>;

/**
 * Parses a form body strictly: every name and value must percent-decode to well-formed UTF-8.
 * The lenient parsers (`URLSearchParams`, `node:querystring`) turn ill-formed bytes (a lone
 * surrogate sent as CESU-8, a cut sequence) into U+FFFD, so a string that was never text would
 * pass every later rule; here it is refused, naming the field when its name is readable.
 * `__proto__` is a name like any other (the fields are own data properties).
 */
export function parseFormBody(body: string): { fields: FormFields } | { refusal: string } {
  const fields = new Map<string, string | string[]>();
  for (const pair of body.split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const rawName = at === -1 ? pair : pair.slice(0, at);
    const rawValue = at === -1 ? '' : pair.slice(at + 1);
    const name = decodeFormComponent(rawName);
    if (name === undefined) return { refusal: 'a parameter name is not well-formed UTF-8' };
    const value = decodeFormComponent(rawValue);
    if (value === undefined) return { refusal: `${readableName(name)} is not well-formed UTF-8` };
    const seen = fields.get(name);
    fields.set(name, seen === undefined ? value : [...[seen].flat(), value]);
  }
  return { fields: Object.fromEntries(fields) };
}

function decodeFormComponent(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

/** A name as an answer may echo it: plainly a name, else "a parameter". */
export function readableName(name: string): string {
  return /^[\w.-]{1,64}$/.test(name) ? name : 'a parameter';
}
