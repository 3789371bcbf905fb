import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { CHROMIUM, launchChromium } from '../support/chromium.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstUrl } from '../support/browser-agent.js';
import { latestMailTo } from '../support/mail-drop.js';
import { skipWhen } from '../support/skip.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * The README's "connect by URL alone" with the MCP Inspector 2.x: its CLI is given only the MCP
 * URL, gets the 401, discovers the authorization server, registers itself (DCR) and prints an
 * authorization URL; a person in headless Chromium signs in with the e-mail link and approves;
 * the browser lands on the Inspector's own loopback callback, and the CLI then lists portal users
 * with the read-only OAuth token it was issued. The Inspector asks for a terminal before it starts
 * an interactive sign-in, so it runs under `script` (a pseudo-terminal).
 */
const INSPECTOR = resolve('node_modules/.bin/mcp-inspector');
const SCRIPT = '/usr/bin/script';
const missing = [INSPECTOR, CHROMIUM, SCRIPT].filter((path) => !existsSync(path));
const SKIP = skipWhen(missing.length > 0 && `missing ${missing.join(', ')}`);
const OWNER = 'olivia.owner@acme.test';
/** Page loads and clicks on a loaded 2-core machine: generous, never a measurement. */
const STEP_MS = 60_000;
// oxlint-disable-next-line no-control-regex -- the terminal's hyperlink escapes end the URL
const AUTHORIZE_URL = /http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?[^\s\u0007\u001b\]]+/;

describe('the MCP Inspector CLI, authorized in a browser', SKIP, () => {
  let t: TestServer | undefined;
  let context: BrowserContext | undefined;
  let home: string | undefined;
  let cli: ChildProcess | undefined;

  beforeAll(async () => {
    t = await startTestServer({ logLevel: 'error' });
    home = await mkdtemp(join(tmpdir(), 'inspector-oauth-'));
    context = await launchChromium(join(home, 'chromium'), { timeoutMs: STEP_MS * 2 });
  }, 240_000);

  afterAll(async () => {
    try {
      cli?.kill('SIGKILL');
      await context?.close();
    } finally {
      await t?.close();
      if (home !== undefined) await rm(home, { recursive: true, force: true });
    }
  }, 120_000);

  it('by URL alone: discovery, registration, sign-in, consent, then list_portal_users', async () => {
    const command = [
      process.execPath,
      INSPECTOR,
      '--cli',
      `${t!.url}/mcp`,
      '--method',
      'tools/call',
      '--tool-name',
      'list_portal_users',
    ]
      .map((word) => `'${word}'`)
      .join(' ');
    let output = '';
    cli = spawn(SCRIPT, ['-qec', command, '/dev/null'], {
      env: { ...process.env, HOME: home, MCP_INSPECTOR_SECRET_STORE: 'memory' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    cli.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    cli.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((done) => cli!.once('exit', (code) => done(code)));

    const deadline = Date.now() + STEP_MS;
    while (!AUTHORIZE_URL.test(output) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
    }
    const authorizationUrl = AUTHORIZE_URL.exec(output)?.[0];
    expect(
      authorizationUrl,
      `the Inspector printed no authorization URL:\n${output}`,
    ).toBeDefined();
    const asked = new URL(authorizationUrl!);
    expect(asked.searchParams.get('code_challenge_method')).toBe('S256');
    expect(asked.searchParams.get('resource')).toBe(`${t!.url}/mcp`);

    const page = context!.pages()[0] ?? (await context!.newPage());
    page.setDefaultTimeout(STEP_MS);
    await page.goto(authorizationUrl!);
    await page.getByLabel(/e-mail/i).fill(OWNER);
    await Promise.all([
      page.waitForLoadState('load'),
      page.getByRole('button', { name: 'E-mail me a sign-in link' }).click(),
    ]);
    await page.getByRole('status').waitFor();
    await page.goto(firstUrl(await latestMailTo(t!, OWNER)));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(/\/consent\//);
    expect(await page.locator('body').innerText()).toMatch(/portal users/i);
    await page.getByRole('button', { name: 'Allow' }).click();
    // The browser ends on the Inspector's own loopback callback.
    await page.waitForURL(
      (url) => url.hostname === '127.0.0.1' && url.pathname.endsWith('/callback'),
    );

    const code = await Promise.race([
      exited,
      new Promise<'late'>((r) => setTimeout(() => r('late'), STEP_MS)),
    ]);
    expect(code, output).toBe(0);
    // The tool's result as the Inspector prints it: Acme's portal users, read with the OAuth token.
    expect(output).toContain('"email": "bruno@example.com"');
    expect(output).toContain('"next_cursor"');
    expect(output).not.toContain('"isError": true');
  }, 300_000);
});
