/**
 * The picture of a load run, as SVG written by hand (a chart library would be the heaviest
 * dependency of the project for two line charts): above, latency over the run's time (p50, p99
 * and max of each window of scheduled time, steps marked); below, the percentile curve of each
 * step on HdrHistogram's axis (0, 90, 99, 99.9 % … equally spaced). Both latency axes are
 * logarithmic, so a 1 ms median and a 1 s stall are both readable.
 */
import type { LoadReport } from './report';
import type { CurvePoint, GroupSummary } from './record';

const WIDTH = 960;
const PANEL = { left: 70, right: 20, height: 300 } as const;
const TOP = { y: 40 } as const;
const BOTTOM = { y: 400 } as const;
const HEIGHT = 760;
const COLOURS = [
  '#1f77b4',
  '#ff7f0e',
  '#2ca02c',
  '#d62728',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#17becf',
];

const esc = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const num = (value: number) => (Math.round(value * 10) / 10).toString();

/** A logarithmic latency axis from the powers of ten around `min` and `max` (ms). */
function logAxis(min: number, max: number, top: number) {
  const low = Math.floor(Math.log10(Math.max(min, 0.01)));
  const high = Math.max(low + 1, Math.ceil(Math.log10(Math.max(max, 0.01))));
  const y = (ms: number) =>
    top +
    PANEL.height -
    ((Math.log10(Math.max(ms, 10 ** low)) - low) / (high - low)) * PANEL.height;
  const ticks = Array.from({ length: high - low + 1 }, (_, i) => 10 ** (low + i));
  return { y, ticks };
}

const msLabel = (ms: number) => (ms >= 1000 ? `${ms / 1000} s` : `${ms} ms`);

function yGrid(axis: ReturnType<typeof logAxis>, right: number): string[] {
  return axis.ticks.flatMap((tick) => [
    `<line x1="${PANEL.left}" y1="${num(axis.y(tick))}" x2="${right}" y2="${num(axis.y(tick))}" stroke="#ddd"/>`,
    `<text x="${PANEL.left - 6}" y="${num(axis.y(tick) + 4)}" text-anchor="end">${esc(msLabel(tick))}</text>`,
  ]);
}

const polyline = (points: [number, number][], colour: string, width = 1.5, extra = '') =>
  `<polyline fill="none" stroke="${colour}" stroke-width="${width}"${extra} points="${points.map(([x, y]) => `${num(x)},${num(y)}`).join(' ')}"/>`;

/** The SVG document for a report. */
export function renderSvg(report: LoadReport): string {
  const right = WIDTH - PANEL.right;
  const plotWidth = right - PANEL.left;
  const windows = report.timeline.windows;
  const totalS = report.settings.steps.reduce((sum, step) => sum + step.seconds, 0);
  const all = windows.flatMap((w) => [w.p50Ms, w.maxMs]).filter((v) => v > 0);
  const top = logAxis(Math.min(...all, 1), Math.max(...all, 1), TOP.y);
  const x = (s: number) => PANEL.left + (s / totalS) * plotWidth;
  const mid = (atS: number) => x(atS + report.timeline.windowMs / 2000);

  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${PANEL.left}" y="20" font-size="14" font-weight="bold">${esc(`Latency over time, from each request's scheduled time: ${report.url}`)}</text>`,
    ...yGrid(top, right),
  ];
  let at = 0;
  report.settings.steps.forEach((step, index) => {
    parts.push(
      `<line x1="${num(x(at))}" y1="${TOP.y}" x2="${num(x(at))}" y2="${TOP.y + PANEL.height}" stroke="#999" stroke-dasharray="4 3"/>`,
      `<text x="${num(x(at) + 4)}" y="${TOP.y + 12}" fill="${COLOURS[index % COLOURS.length]}">${esc(`${step.rate}/s`)}</text>`,
    );
    at += step.seconds;
  });
  for (let s = 0; s <= totalS; s += Math.max(1, Math.ceil(totalS / 10))) {
    parts.push(
      `<text x="${num(x(s))}" y="${TOP.y + PANEL.height + 16}" text-anchor="middle">${s} s</text>`,
    );
  }
  parts.push(
    polyline(
      windows.map((w) => [mid(w.atS), top.y(w.maxMs)]),
      '#aaa',
      1,
    ),
    polyline(
      windows.map((w) => [mid(w.atS), top.y(w.p99Ms)]),
      '#d62728',
    ),
    polyline(
      windows.map((w) => [mid(w.atS), top.y(w.p50Ms)]),
      '#1f77b4',
    ),
    ...windows
      .filter((w) => w.notOk > 0)
      .map(
        (w) =>
          `<rect x="${num(mid(w.atS) - 1.5)}" y="${TOP.y + PANEL.height - 6}" width="3" height="6" fill="#d62728"><title>${w.notOk} not 2xx</title></rect>`,
      ),
    `<text x="${right}" y="${TOP.y - 6}" text-anchor="end"><tspan fill="#1f77b4">p50</tspan> <tspan fill="#d62728">p99</tspan> <tspan fill="#888">max</tspan> per ${report.timeline.windowMs} ms window; red marks: answers not 2xx</text>`,
  );

  // The percentile curve: x = log10(1 / (1 − p)), so 90, 99, 99.9 % are a decade apart.
  const curves: { label: string; summary: GroupSummary; points: CurvePoint[]; colour: string }[] =
    report.steps.map((step, index) => ({
      label: `${step.rate}/s`,
      summary: step,
      points: step.curve,
      colour: COLOURS[index % COLOURS.length]!,
    }));
  if (report.steps.length > 1) {
    curves.push({
      label: 'all',
      summary: report.overall,
      points: report.overall.curve,
      colour: '#000',
    });
  }
  const decades = Math.max(2, Math.ceil(Math.log10(Math.max(2, report.overall.requests))));
  const px = (p: number) =>
    PANEL.left +
    (Math.min(decades, p >= 100 ? decades : -Math.log10(1 - p / 100)) / decades) * plotWidth;
  const values = curves.flatMap((c) => c.points.map((p) => p.ms)).filter((v) => v > 0);
  const bottom = logAxis(Math.min(...values, 1), Math.max(...values, 1), BOTTOM.y);
  parts.push(
    `<text x="${PANEL.left}" y="${BOTTOM.y - 20}" font-size="14" font-weight="bold">Percentile curve (latency from the scheduled time)</text>`,
    ...yGrid(bottom, right),
  );
  for (let d = 0; d <= decades; d++) {
    const label = d === 0 ? '0%' : `${(100 * (1 - 10 ** -d)).toFixed(Math.max(0, d - 2))}%`;
    parts.push(
      `<line x1="${num(px(100 * (1 - 10 ** -d)))}" y1="${BOTTOM.y}" x2="${num(px(100 * (1 - 10 ** -d)))}" y2="${BOTTOM.y + PANEL.height}" stroke="#eee"/>`,
      `<text x="${num(px(100 * (1 - 10 ** -d)))}" y="${BOTTOM.y + PANEL.height + 16}" text-anchor="${d === decades ? 'end' : 'middle'}">${label}</text>`,
    );
  }
  // The legend sits bottom right, where the curves (rising to the right) leave room.
  const legendTop = BOTTOM.y + PANEL.height - 8 - 14 * curves.length;
  parts.push(
    `<rect x="${right - 470}" y="${legendTop - 4}" width="466" height="${14 * curves.length + 8}" fill="white" fill-opacity="0.85"/>`,
  );
  curves.forEach((curve, index) => {
    const s = curve.summary;
    const ms = (v: number) => `${v.toFixed(1)} ms`;
    parts.push(
      polyline(
        curve.points.map((p) => [px(p.percentile), bottom.y(p.ms)]),
        curve.colour,
        curve.label === 'all' ? 2 : 1.5,
      ),
      `<text x="${right - 8}" y="${legendTop + 10 + 14 * index}" text-anchor="end" fill="${curve.colour}">${esc(`${curve.label}: ${s.requests} requests, p50 ${ms(s.latencyMs.p50)}, p99 ${ms(s.latencyMs.p99)}, max ${ms(s.latencyMs.max)}`)}</text>`,
    );
  });
  parts.push('</svg>', '');
  return parts.join('\n');
}
