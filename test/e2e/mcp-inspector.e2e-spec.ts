// oxlint-disable typescript/no-unsafe-type-assertion -- the Inspector prints JSON; the test reads the fields it asserts on
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipWhen } from '../support/skip.js';
import { startTestServer, type TestServer } from '../support/test-server.js';

/**
 * The MCP Inspector's CLI (2.x), the third outside client after the two SDKs, against our own
 * tools and the conformance fixtures, in both protocol eras: `--strict` finds no schema
 * portability problem in tools/list, and calls, prompts, resources and a tool error come back as
 * the Inspector reads them.
 */
const INSPECTOR = resolve('node_modules/.bin/mcp-inspector');
const INSPECTOR_MISSING = !existsSync(INSPECTOR) && `${INSPECTOR} is not installed (npm ci)`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

let t: TestServer;
let home: string;

function inspector(token: string, args: string[]): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [INSPECTOR, '--cli', `${t.url}/mcp`, '--header', `Authorization: Bearer ${token}`, ...args],
      // Its catalogue and stored credentials go to a home of the test's own.
      { env: { ...process.env, HOME: home }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        done({ code, stdout, stderr });
      },
    );
  });
}

function json(run: Run): Record<string, unknown> {
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

describe('the MCP Inspector CLI', skipWhen(INSPECTOR_MISSING), () => {
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'inspector-home-'));
    t = await startTestServer({ mcpConformanceFixtures: true });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    if (home !== undefined) await rm(home, { recursive: true, force: true });
  });

  describe.each(['legacy', 'modern'] as const)('protocol era %s', (era) => {
    const eraArgs = ['--protocol-era', era];

    it('tools/list --strict: our tools and the fixtures, no portability problem reported', async () => {
      const run = await inspector(t.tokens.owner, [
        ...eraArgs,
        '--method',
        'tools/list',
        '--strict',
      ]);
      const names = (json(run).tools as Array<{ name: string }>).map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['get_current_context', 'test_simple_text']));
      expect(run.stderr).not.toMatch(/Warning|Error/);
    }, 90_000);

    it('calls one of our tools and a fixture tool', async () => {
      const context = json(
        await inspector(t.tokens.owner, [
          ...eraArgs,
          '--method',
          'tools/call',
          '--tool-name',
          'get_current_context',
        ]),
      );
      const text = (context.content as Array<{ text: string }>)[0]?.text ?? '';
      expect(JSON.parse(text)).toMatchObject({ organization: { slug: 'acme' }, channel: 'mcp' });
      const fixture = json(
        await inspector(t.tokens.owner, [
          ...eraArgs,
          '--method',
          'tools/call',
          '--tool-name',
          'test_simple_text',
        ]),
      );
      expect(fixture.content).toEqual([
        { type: 'text', text: 'This is a simple text response for testing.' },
      ]);
    }, 90_000);

    it('reads a fixture prompt with arguments and a fixture resource', async () => {
      const prompt = json(
        await inspector(t.tokens.owner, [
          ...eraArgs,
          '--method',
          'prompts/get',
          '--prompt-name',
          'test_prompt_with_arguments',
          '--prompt-args',
          'arg1=a',
          'arg2=b',
        ]),
      );
      expect(JSON.stringify(prompt.messages)).toContain("arg1='a', arg2='b'");
      const resource = json(
        await inspector(t.tokens.owner, [
          ...eraArgs,
          '--method',
          'resources/read',
          '--uri',
          'test://static-text',
        ]),
      );
      expect(resource.contents).toEqual([
        expect.objectContaining({ uri: 'test://static-text', mimeType: 'text/plain' }),
      ]);
    }, 90_000);

    it('a refused tool call is an isError result carrying the envelope that names the fix', async () => {
      const run = await inspector(t.tokens.readonly_pat, [
        ...eraArgs,
        '--method',
        'tools/call',
        '--tool-name',
        'create_account',
        '--tool-arg',
        'name=Initech',
      ]);
      const result = JSON.parse(run.stdout) as { isError?: boolean; content: { text: string }[] };
      expect(result.isError).toBe(true);
      expect(JSON.parse(result.content[0]?.text ?? '')).toMatchObject({
        error: { code: 'insufficient_scope', details: { required_scope: 'accounts:write' } },
      });
    }, 90_000);
  });
});
