/**
 * bench/soak/soak.png: four panels over time (RSS, open fds, event-loop delay p99, request p99), a line per gateway
 * process. Drawn as an SVG string and rasterised by sharp (a dependency already), so the soak needs no plotting
 * library. A gap in a line is a sample the process did not answer.
 */
import sharp from 'sharp';
import type { Sample } from './trends.js';

const WIDTH = 1200;
const HEIGHT = 820;
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e'];
const PAD = { left: 64, right: 16, top: 52, bottom: 40 };
/** The y axis fits the run after this share of it: the start (compiling, warming up) would flatten the rest. */
const WARMUP_SHARE = 0.1;

interface Series {
  label: string;
  color: string;
  /** [minutes, value]; a NaN value breaks the line. */
  points: [number, number][];
}

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

const escapeXml = (raw: string) => raw.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
const text = (x: number, y: number, body: string, attrs = '') =>
  `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" ${attrs}>${escapeXml(body)}</text>`;

/** About `count` round ticks from 0 to at least `max` (steps of 1, 2 or 5 × 10^k). */
export function ticks(max: number, count = 5): number[] {
  const top = max > 0 && Number.isFinite(max) ? max : 1;
  const raw = top / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw)!;
  const out: number[] = [];
  for (let v = 0; v < top + step; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

/** Runs of consecutive finite points, each drawn as one polyline. */
function runs(points: [number, number][]): [number, number][][] {
  const out: [number, number][][] = [[]];
  for (const p of points) {
    if (Number.isFinite(p[1])) out.at(-1)!.push(p);
    else if (out.at(-1)!.length > 0) out.push([]);
  }
  return out.filter((r) => r.length > 0);
}

function axes(box: Box, xTicks: number[], yTicks: number[], toX: (v: number) => number, toY: (v: number) => number) {
  const parts: string[] = [];
  for (const v of yTicks) {
    const y = toY(v);
    parts.push(`<line x1="${box.x}" y1="${y}" x2="${box.x + box.w}" y2="${y}" stroke="#e5e5e5"/>`);
    parts.push(text(box.x - 6, y + 4, String(v), 'text-anchor="end" font-size="12"'));
  }
  for (const v of xTicks) {
    const x = toX(v);
    parts.push(`<line x1="${x}" y1="${box.y}" x2="${x}" y2="${box.y + box.h}" stroke="#f0f0f0"/>`);
    parts.push(text(x, box.y + box.h + 16, String(v), 'text-anchor="middle" font-size="12"'));
  }
  parts.push(`<rect x="${box.x}" y="${box.y}" width="${box.w}" height="${box.h}" fill="none" stroke="#888"/>`);
  return parts;
}

/** The top of the y axis: the highest value after the warm-up (all of them if that leaves none). */
function yTop(series: Series[], maxMinutes: number): { top: number; clipped: boolean } {
  const all = series.flatMap((s) => s.points).filter(([, v]) => Number.isFinite(v));
  const after = all.filter(([t]) => t >= maxMinutes * WARMUP_SHARE);
  const top = Math.max(0, ...(after.length > 0 ? after : all).map(([, v]) => v)) * 1.05;
  return { top, clipped: all.some(([, v]) => v > ticks(top).at(-1)!) };
}

function panel(outer: Box, title: string, series: Series[], maxMinutes: number): string {
  const box = {
    x: outer.x + PAD.left,
    y: outer.y + PAD.top,
    w: outer.w - PAD.left - PAD.right,
    h: outer.h - PAD.top - PAD.bottom,
  };
  const { top, clipped } = yTop(series, maxMinutes);
  const yTicks = ticks(top);
  const xTicks = ticks(maxMinutes, 6);
  const toX = (v: number) => box.x + (v / xTicks.at(-1)!) * box.w;
  // A point above the axis (the warm-up) is drawn on its top edge.
  const toY = (v: number) => box.y + box.h - (Math.min(v, yTicks.at(-1)!) / yTicks.at(-1)!) * box.h;
  const note = clipped ? ' (start off the scale)' : '';
  const parts = [
    text(box.x, outer.y + 22, title + note, 'font-size="16" font-weight="bold"'),
    ...axes(box, xTicks, yTicks, toX, toY),
    text(box.x + box.w, box.y + box.h + 32, 'minutes', 'text-anchor="end" font-size="12" fill="#555"'),
  ];
  series.forEach((s, i) => {
    for (const run of runs(s.points)) {
      const coords = run.map(([x, y]) => `${toX(x).toFixed(1)},${toY(y).toFixed(1)}`).join(' ');
      parts.push(`<polyline points="${coords}" fill="none" stroke="${s.color}" stroke-width="2"/>`);
    }
    const lx = box.x + 100 * i;
    parts.push(`<rect x="${lx}" y="${outer.y + 34}" width="14" height="4" fill="${s.color}"/>`);
    parts.push(text(lx + 18, outer.y + 40, s.label, 'font-size="12"'));
  });
  return parts.join('\n');
}

/** One line per process of the figure `read` takes from each process sample. */
function perProcess(samples: Sample[], read: (p: Sample['processes'][number]) => number): Series[] {
  const count = samples[0]?.processes.length ?? 0;
  return Array.from({ length: count }, (_, i) => ({
    label: `gateway ${i}`,
    color: COLORS[i % COLORS.length]!,
    points: samples.map((s): [number, number] => [s.atSec / 60, read(s.processes[i]!)]),
  }));
}

export function svg(samples: Sample[], title: string): string {
  const maxMinutes = Math.max(1 / 6, ...samples.map((s) => s.atSec / 60));
  const w = WIDTH / 2;
  const h = (HEIGHT - 40) / 2;
  const latency: Series[] = [
    { label: 'p50', color: COLORS[3]!, points: samples.map((s) => [s.atSec / 60, s.p50Ms]) },
    { label: 'p99', color: COLORS[4]!, points: samples.map((s) => [s.atSec / 60, s.p99Ms]) },
  ];
  const panels = [
    panel(
      { x: 0, y: 40, w, h },
      'RSS (MB)',
      perProcess(samples, (p) => p.rssMb),
      maxMinutes,
    ),
    panel(
      { x: w, y: 40, w, h },
      'Open file descriptors',
      perProcess(samples, (p) => p.fds),
      maxMinutes,
    ),
    panel(
      { x: 0, y: 40 + h, w, h },
      'Event-loop delay p99 (ms)',
      perProcess(samples, (p) => p.loopP99Ms),
      maxMinutes,
    ),
    panel({ x: w, y: 40 + h, w, h }, 'Request latency, client side (ms)', latency, maxMinutes),
  ];
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" font-family="DejaVu Sans, sans-serif">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    text(WIDTH / 2, 26, title, 'text-anchor="middle" font-size="18" font-weight="bold"'),
    ...panels,
    '</svg>',
  ].join('\n');
}

export async function writePlot(samples: Sample[], title: string, file: string): Promise<void> {
  await sharp(Buffer.from(svg(samples, title)))
    .png()
    .toFile(file);
}
