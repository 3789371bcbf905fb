/** A Redis URL fit for a log line: the password (and a user name) replaced, nothing else. */
export function redactRedisUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== '') u.password = '***';
    if (u.username !== '' && u.username !== 'default') u.username = '***';
    return u.toString();
  } catch {
    return '(unparsable URL)';
  }
}
