// The result table (console and Markdown), the ratios, and the section of docs/benchmarks.md the
// benchmark rewrites (between `<!-- bench:<engine> -->` and `<!-- /bench:<engine> -->`).
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { median } from './load.mjs';

const fmt = (v, digits = 0) =>
  Number.isFinite(v)
    ? v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '–';
const ms = (v) => (Number.isFinite(v) ? (v < 10 ? fmt(v, 2) : fmt(v, 1)) : '–');

/** Median of each metric over the rounds, and the per-round list of req/s. */
export function aggregate(runs) {
  const pick = (k) => median(runs.map((r) => r[k]));
  return {
    rounds: runs.length,
    rps: pick('rps'),
    rpsByRound: runs.map((r) => r.rps),
    p50: pick('p50'),
    p99: pick('p99'),
    mean: pick('mean'),
    servingCpu: pick('servingCpuPerReqUs'),
    dbCpu: pick('dbCpuPerReqUs'),
    clientCpu: pick('clientCpuPerReqUs'),
    count: runs.reduce((a, r) => a + r.count, 0),
  };
}

/** Median over rounds of a per-round ratio (both sides measured in the same round, side by side). */
export function pairedRatio(results, a, b, key = 'rps') {
  const ra = results[a] ?? [];
  const rb = results[b] ?? [];
  const ratios = [];
  for (let i = 0; i < Math.min(ra.length, rb.length); i += 1) ratios.push(ra[i][key] / rb[i][key]);
  return median(ratios);
}

export function pairedDiff(results, a, b, key) {
  const ra = results[a] ?? [];
  const rb = results[b] ?? [];
  const diffs = [];
  for (let i = 0; i < Math.min(ra.length, rb.length); i += 1) diffs.push(ra[i][key] - rb[i][key]);
  return median(diffs);
}

/** Markdown for one engine's run: the table, the ratios, the targets, the environment. */
export function markdown({ scenarios, results, ratios, env, notes }) {
  const lines = [];
  lines.push(
    `Run ${env.when} · ${env.engine} · ${env.connections} connections · ${env.rounds} interleaved rounds of ${env.seconds} s after a ${env.warmupSeconds} s warm-up; each figure is the median over the rounds.`,
    '',
    '| | scenario | req/s (median) | req/s per round | p50 ms | p99 ms | server CPU µs/req | DB CPU µs/req | total CPU µs/req | load-generator CPU µs/req |',
    '|---|---|---:|---|---:|---:|---:|---:|---:|---:|',
  );
  for (const s of scenarios) {
    const runs = results[s.key];
    if (runs === undefined || runs.length === 0) continue;
    const a = aggregate(runs);
    const total = a.servingCpu + (s.dbCpuIncluded ? 0 : a.dbCpu);
    lines.push(
      `| ${s.key} | ${s.label} | ${fmt(a.rps)} | ${a.rpsByRound.map((v) => fmt(v)).join(' / ')} | ${ms(a.p50)} | ${ms(a.p99)} | ${fmt(a.servingCpu)} | ${s.dbCpuIncluded ? 'incl.' : fmt(a.dbCpu)} | ${fmt(total)} | ${fmt(a.clientCpu)} |`,
    );
  }
  lines.push('', '**Ratios** (median over rounds of the per-round ratio):', '');
  for (const r of ratios) lines.push(`- ${r.label}: **${r.text}**`);
  if (notes.length > 0) {
    lines.push('');
    for (const n of notes) lines.push(`- ${n}`);
  }
  lines.push(
    '',
    '<details><summary>Environment</summary>',
    '',
    ...Object.entries(env.machine).map(([k, v]) => `- ${k}: ${v}`),
    '',
    '</details>',
  );
  return lines.join('\n');
}

/** Plain-text table for the console. */
export function consoleTable({ scenarios, results, ratios }) {
  const rows = [['', 'scenario', 'req/s', 'p50 ms', 'p99 ms', 'srv µs/req', 'db µs/req', 'rounds']];
  for (const s of scenarios) {
    const runs = results[s.key];
    if (runs === undefined || runs.length === 0) continue;
    const a = aggregate(runs);
    rows.push([
      s.key,
      s.label.length > 58 ? `${s.label.slice(0, 57)}…` : s.label,
      fmt(a.rps),
      ms(a.p50),
      ms(a.p99),
      fmt(a.servingCpu),
      s.dbCpuIncluded ? 'incl.' : fmt(a.dbCpu),
      a.rpsByRound.map((v) => fmt(v)).join('/'),
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  const out = rows.map((r) => r.map((c, i) => String(c).padEnd(widths[i])).join('  '));
  out.splice(1, 0, widths.map((w) => '-'.repeat(w)).join('  '));
  out.push('', ...ratios.map((r) => `${r.label}: ${r.text}`));
  return out.join('\n');
}

export { fmt, ms };

const SKELETON = `# Benchmarks

<!-- bench:embedded -->
(not run yet: \`npm run bench\`)
<!-- /bench:embedded -->

<!-- bench:postgres -->
(not run yet: \`DATABASE_URL=postgres://… npm run bench\`)
<!-- /bench:postgres -->
`;

/** Replaces this engine's section of the doc (creating the doc from a skeleton if it is missing). */
export async function writeDocSection(file, engine, text) {
  const doc = existsSync(file) ? await readFile(file, 'utf8') : SKELETON;
  const start = `<!-- bench:${engine} -->`;
  const end = `<!-- /bench:${engine} -->`;
  const i = doc.indexOf(start);
  const j = doc.indexOf(end);
  const body = `${start}\n${text}\n${end}`;
  const next =
    i !== -1 && j > i
      ? doc.slice(0, i) + body + doc.slice(j + end.length)
      : `${doc.trimEnd()}\n\n${body}\n`;
  // Keep `npm run format:check` green: the doc is written as prettier would write it.
  const prettier = await import('prettier');
  const options = (await prettier.resolveConfig(file)) ?? {};
  await writeFile(file, await prettier.format(next, { ...options, filepath: file }));
}
