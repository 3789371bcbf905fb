import { randomUUID } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { PersonalMail, PersonalMailer } from './personal-mail.js';

/** A message of the local mail drop, as `mail:show` prints it. */
export interface DroppedMail extends PersonalMail {
  created_at: string;
  file: string;
}

/** Messages older than this are deleted when the next one is written: a link is long dead by then. */
const KEEP_MS = 24 * 3600_000;
const FILE = /^\d{13}-[0-9a-f-]{36}\.json$/;

/**
 * The local mail drop: personal mail as files under `DATA_DIR/mail` (directory 0700, files 0600),
 * for a machine without a mail service outside production (the embedded demo, development). Only
 * this machine's user reads them (`npm run admin -- mail:show --email …`, or the files); no
 * API, page or log line carries their content.
 */
export class LocalMailDrop implements PersonalMailer {
  readonly kind = 'local';
  readonly directory: string;

  constructor(dataDir: string) {
    this.directory = join(resolve(dataDir), 'mail');
  }

  async deliver(mail: PersonalMail): Promise<void> {
    await mkdir(this.directory, { recursive: true, mode: 0o700 });
    // mkdir's mode applies only to a directory it creates; an older one is narrowed too.
    await chmod(this.directory, 0o700);
    const now = Date.now();
    const content: Omit<DroppedMail, 'file'> = { ...mail, created_at: new Date(now).toISOString() };
    await writeFile(
      join(this.directory, `${now}-${randomUUID()}.json`),
      `${JSON.stringify(content, null, 2)}\n`,
      { mode: 0o600, flag: 'wx' },
    );
    await this.prune(now - KEEP_MS);
  }

  /** The newest messages to `email` (any case), newest first. */
  async newestTo(email: string, limit = 1): Promise<DroppedMail[]> {
    const wanted = email.trim().toLowerCase();
    const found: DroppedMail[] = [];
    for (const name of (await this.files()).toReversed()) {
      const mail = await this.read(name);
      if (mail?.to.toLowerCase() !== wanted) continue;
      found.push(mail);
      if (found.length >= limit) break;
    }
    return found;
  }

  private async files(): Promise<string[]> {
    try {
      // The names start with the time in milliseconds (13 digits until 2286): sorted = in order.
      return (await readdir(this.directory)).filter((n) => FILE.test(n)).sort();
    } catch (err) {
      if (Reflect.get(Object(err), 'code') === 'ENOENT') return [];
      throw err;
    }
  }

  private async read(name: string): Promise<DroppedMail | undefined> {
    const file = join(this.directory, name);
    try {
      const value: unknown = JSON.parse(await readFile(file, 'utf8'));
      if (typeof value !== 'object' || value === null) return undefined;
      const field = (key: string): string => String(Reflect.get(value, key) ?? '');
      return {
        to: field('to'),
        subject: field('subject'),
        text: field('text'),
        created_at: field('created_at'),
        file,
      };
    } catch {
      return undefined; // deleted meanwhile, or not ours
    }
  }

  private async prune(before: number): Promise<void> {
    for (const name of await this.files()) {
      if (Number(name.slice(0, 13)) >= before) break;
      const file = join(this.directory, name);
      if ((await stat(file).catch(() => undefined))?.isFile() === true)
        await rm(file, { force: true });
    }
  }
}
