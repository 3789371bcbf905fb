/**
 * A minimal browser stand-in for HTTP tests of server-rendered pages: a cookie jar (name → value,
 * honouring deletions), manual redirects, and helpers to read a form's hidden fields.
 */
export class BrowserAgent {
  readonly cookies = new Map<string, string>();

  constructor(readonly baseUrl: string) {}

  async fetch(
    path: string,
    init: RequestInit & { form?: Record<string, string> } = {},
  ): Promise<Response> {
    const { form, headers, ...rest } = init;
    const h = new Headers(headers);
    if (this.cookies.size > 0)
      h.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    if (form !== undefined) h.set('content-type', 'application/x-www-form-urlencoded');
    const url = path.startsWith('http') ? path : `${this.baseUrl}${path}`;
    const response = await fetch(url, {
      redirect: 'manual',
      ...rest,
      method: form !== undefined ? 'POST' : rest.method,
      headers: h,
      body: form !== undefined ? new URLSearchParams(form).toString() : rest.body,
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a));
      if (value === '' || expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }
}

/** The value of `<input type="hidden" name="…" value="…">` in a page (HTML-unescaped). */
export function hiddenField(html: string, name: string): string {
  const match = new RegExp(`<input type="hidden" name="${name}" value="([^"]*)">`).exec(html);
  if (match?.[1] === undefined) throw new Error(`no hidden field ${name} in page:\n${html}`);
  return match[1]
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}

/** The first http(s) URL in a text (the link in a sign-in mail). */
export function firstUrl(text: string): string {
  const match = /https?:\/\/\S+/.exec(text);
  if (match === null) throw new Error(`no URL in:\n${text}`);
  return match[0];
}
