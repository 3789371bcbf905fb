import { setTimeout as delay } from 'node:timers/promises';
import { LocalMailDrop } from '@app/mail';
import { SignInLinkService } from '@app/oauth-server';
import type { BuiltServer } from './built-server.js';
import type { TestServer } from './test-server.js';

/** A built server (a child process) is only waited for this long to write its mail. */
const CHILD_MAIL_WAIT_MS = 20_000;

/**
 * The text of the newest mail to `email` in the local mail drop (where a person's own mail goes
 * without SMTP outside production). An in-process server first finishes the sign-in requests it
 * queued; a built server (another process) is polled for a mail written in the last 10 seconds.
 */
export async function latestMailTo(
  server: TestServer | Pick<BuiltServer, 'dataDir'>,
  email: string,
): Promise<string> {
  if ('server' in server) {
    await server.server.app.get(SignInLinkService).settled();
    const [mail] = await new LocalMailDrop(server.server.config.dataDir).newestTo(email);
    if (mail === undefined) throw new Error(`no mail to ${email}`);
    return mail.text;
  }
  const since = Date.now() - 10_000;
  const drop = new LocalMailDrop(server.dataDir);
  for (const deadline = Date.now() + CHILD_MAIL_WAIT_MS; Date.now() < deadline;) {
    const [mail] = await drop.newestTo(email);
    if (mail !== undefined && Date.parse(mail.created_at) >= since) return mail.text;
    await delay(100);
  }
  throw new Error(`no mail to ${email}`);
}
