import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserAgent, hiddenField } from '../support/browser-agent.js';
import { startBuiltServer, type BuiltServer } from '../support/built-server.js';

/**
 * The README's code blocks, run as a new user pastes them: from a directory laid out like the
 * repository (`.data/`, `node_modules`, `dist`, `package.json`), against the built server started as
 * `npm start` starts it, on Node as installed. Each block is one of:
 * - ```sh: run with bash; it must exit 0, and the ```text output block after it (if any) must match
 *   what it printed (`…` stands for any text; lines in order);
 * - ```js file=NAME: written to NAME for a later block to run;
 * - marked `norun` (a config fragment, what a command prints, the commands that install and start
 *   the server this test has started, production steps): not run.
 * A block with none of these fails the test, so a new block is either run or explicitly not.
 * The README says port 3000; the server here listens on a free port, substituted in every block.
 * The blocks run one after the other as in one terminal (`TOKEN` as the README's blocks set it).
 */

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const README = join(ROOT, 'README.md');
const BLOCK_TIMEOUT_MS = 120_000;

interface Block {
  line: number;
  lang: string;
  attrs: string[];
  body: string;
}

function blocksOf(markdown: string): Block[] {
  const blocks: Block[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\S*)\s*(.*)$/.exec(lines[i]);
    if (open === null) continue;
    const [, indent, lang, rest] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]); j++)
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j]);
    blocks.push({
      line: i + 1,
      lang,
      attrs: rest.split(/\s+/).filter(Boolean),
      body: body.join('\n'),
    });
    i = j;
  }
  return blocks;
}

/** The expected output as a pattern: `…` is any text, lines in order with anything between. */
function outputPattern(expected: string): RegExp {
  const lines = expected
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) =>
      l
        .split('…')
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('[\\s\\S]*?'),
    );
  return new RegExp(lines.join('[\\s\\S]*?'));
}

function bash(
  script: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; out: string }> {
  return new Promise((done, fail) => {
    const child = spawn('bash', ['-eo', 'pipefail', '-c', script], { cwd, env });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), BLOCK_TIMEOUT_MS);
    child.once('error', fail);
    child.once('exit', (code) => {
      clearTimeout(killer);
      done({ code, out });
    });
    // A person answers the snippet's question with "y" and Enter.
    child.stdin.end('y\n');
  });
}

describe('the README, pasted block by block', () => {
  let server: BuiltServer;
  let work: string;
  beforeAll(async () => {
    // As `npm start` runs it: no NODE_ENV (development: sign-in mail to the local mail drop).
    server = await startBuiltServer({ env: { NODE_ENV: 'development' } });
    work = await mkdtemp(join(tmpdir(), 'platform-readme-'));
    await symlink(server.dataDir, join(work, '.data'));
    for (const entry of ['node_modules', 'dist', 'package.json'])
      await symlink(join(ROOT, entry), join(work, entry));
    // What the person did in the browser before the console section's outbox block: asked for a
    // sign-in link on the console's sign-in page.
    const browser = new BrowserAgent(server.url);
    const form = await (await browser.fetch('/signin?return_to=%2Fadmin%2F')).text();
    const sent = await browser.fetch('/signin', {
      form: {
        csrf: hiddenField(form, 'csrf'),
        return_to: hiddenField(form, 'return_to'),
        email: 'olivia.owner@acme.test',
      },
    });
    if (sent.status !== 200) throw new Error(`the sign-in form answered ${sent.status}`);
  }, 180_000);
  afterAll(async () => {
    await server?.dispose();
    if (work !== undefined) await rm(work, { recursive: true, force: true });
  });

  it('every block is run or marked norun, and every run block prints what the README shows', async () => {
    const port = new URL(server.url).port;
    const blocks = blocksOf(readFileSync(README, 'utf8')).map((b) => ({
      ...b,
      body: b.body.replaceAll('127.0.0.1:3000', `127.0.0.1:${port}`),
    }));
    const unmarked = blocks.filter(
      (b) =>
        !b.attrs.includes('norun') &&
        !b.attrs.includes('output') &&
        !b.attrs.some((a) => a.startsWith('file=')) &&
        b.lang !== 'sh',
    );
    expect(unmarked.map((b) => `README.md:${b.line} \`\`\`${b.lang}`)).toEqual([]);
    expect(blocks.filter((b) => b.body.includes('localhost:3000')).map((b) => b.line)).toEqual([]);

    // One terminal: `TOKEN`, set by the first block that sets it, is there for the later ones.
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TOKEN: server.tokens.owner,
    };
    const ran: string[] = [];
    for (const [i, block] of blocks.entries()) {
      if (block.attrs.includes('norun') || block.attrs.includes('output')) continue;
      const file = block.attrs.find((a) => a.startsWith('file='));
      if (file !== undefined) {
        await writeFile(join(work, file.slice('file='.length)), `${block.body}\n`);
        continue;
      }
      const { code, out } = await bash(block.body, work, env);
      const where = `README.md:${block.line}\n${block.body}\n--- printed:\n${out}`;
      expect(code, where).toBe(0);
      const next = blocks[i + 1];
      // No output block: anything it printed is fine (the pattern of nothing matches it).
      const shown = next?.attrs.includes('output') ? next.body : '';
      expect(out, where).toMatch(outputPattern(shown));
      ran.push(block.body.split('\n').at(-1) ?? '');
    }
    // The blocks a new user runs: the Inspector CLI, the SDK snippet, curl, the sign-in mail.
    expect(ran.length).toBeGreaterThanOrEqual(5);
    expect(ran.join('\n')).toContain('node agent.mjs');
  }, 600_000);
});
