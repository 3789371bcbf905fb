import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { OUTCOMES, type Outcome } from '../outcome.js';
import type { MinuteBucket } from '../types.js';

/** Colours per outcome (the legend and the table below name them too: never colour alone). */
const COLOURS: Record<Outcome, string> = {
  ok: '#2f855a',
  tool_error: '#d69e2e',
  refused: '#c53030',
  protocol_error: '#6b46c1',
};
const P95_COLOUR = '#2b6cb0';

/** Times and dates in the browser's own locale (uPlot's defaults are US-style whatever it is). */
const TIME = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const DAY = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short' });
const DAY_TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** Axis ticks: the time, with the date above the first tick of each day. */
function tickLabels(_u: uPlot, splits: number[]): string[] {
  let day = '';
  return splits.map((seconds) => {
    const at = new Date(seconds * 1000);
    const today = DAY.format(at);
    const label = today === day ? TIME.format(at) : `${today}\n${TIME.format(at)}`;
    day = today;
    return label;
  });
}

function toData(buckets: MinuteBucket[]): { data: uPlot.AlignedData; raw: number[][] } {
  const xs = buckets.map((b) => Date.parse(b.minute) / 1000);
  const raw = OUTCOMES.map((o) => buckets.map((b) => b[o.key]));
  // Stacked: each series is drawn as the running total, largest first, so each bar shows its parts.
  const stacked: number[][] = [];
  let running = buckets.map(() => 0);
  for (const series of raw) {
    running = running.map((v, i) => v + series[i]);
    stacked.push(running);
  }
  const p95 = buckets.map((b) => b.p95_ms);
  return { data: [xs, ...stacked.toReversed(), p95] as uPlot.AlignedData, raw };
}

/**
 * Calls per minute stacked by outcome (bars, left axis) and the p95 duration (line, right axis),
 * drawn with uPlot; the same numbers are in a table under "Show as table".
 */
export function ActivityChart(props: { buckets: MinuteBucket[] }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);

  useEffect(() => {
    const el = box.current;
    if (el === null) return undefined;
    const { data, raw } = toData(props.buckets);
    const reversed = OUTCOMES.toReversed();
    const bars = uPlot.paths.bars!({ size: [0.8, 24] });
    const opts: uPlot.Options = {
      width: Math.max(el.clientWidth, 280),
      height: 220,
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true }, calls: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      axes: [
        { values: tickLabels },
        { scale: 'calls', label: 'calls / min', size: 50 },
        // oxlint-disable-next-line typescript/no-unsafe-enum-assignment -- uPlot.Side is a const enum (1 = right) that isolated modules cannot read
        { scale: 'ms', side: 1, label: 'p95 ms', grid: { show: false }, size: 60 },
      ],
      series: [
        {
          value: (_u: uPlot, v: number | null) =>
            v === null ? '—' : DAY_TIME.format(new Date(v * 1000)),
        },
        ...reversed.map((o) => {
          const index = OUTCOMES.findIndex((x) => x.key === o.key);
          return {
            label: o.label,
            scale: 'calls',
            stroke: COLOURS[o.key],
            fill: COLOURS[o.key],
            paths: bars,
            points: { show: false },
            value: (_u: uPlot, _v: number | null, _s: number, idx: number | null) =>
              idx === null ? '—' : String(raw[index][idx] ?? 0),
          } satisfies uPlot.Series;
        }),
        {
          label: 'p95',
          scale: 'ms',
          stroke: P95_COLOUR,
          width: 2,
          spanGaps: true,
          value: (_u: uPlot, v: number | null) => (v === null ? '—' : `${v.toFixed(1)} ms`),
        },
      ],
    };
    plot.current?.destroy();
    plot.current = new uPlot(opts, data, el);
    const observer = new ResizeObserver(() => {
      plot.current?.setSize({ width: Math.max(el.clientWidth, 280), height: 220 });
    });
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [props.buckets]);

  const total = props.buckets.reduce(
    (n, b) => n + b.ok + b.tool_error + b.refused + b.protocol_error,
    0,
  );
  return (
    <figure class="chart">
      <div
        ref={box}
        class="chart-canvas"
        role="img"
        aria-label={`Calls per minute by outcome and p95 duration: ${total} calls in ${props.buckets.length} minutes`}
      />
      <details>
        <summary>Show as table</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">Minute</th>
              {OUTCOMES.map((o) => (
                <th scope="col" key={o.key}>
                  {o.label}
                </th>
              ))}
              <th scope="col">p95</th>
            </tr>
          </thead>
          <tbody>
            {props.buckets
              .filter((b) => b.ok + b.tool_error + b.refused + b.protocol_error > 0)
              .map((b) => (
                <tr key={b.minute}>
                  <td>{new Date(b.minute).toLocaleTimeString()}</td>
                  {OUTCOMES.map((o) => (
                    <td key={o.key}>{b[o.key]}</td>
                  ))}
                  <td>{b.p95_ms === null ? '—' : `${b.p95_ms.toFixed(1)} ms`}</td>
                </tr>
              ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
