/**
 * Whether a figure grows without bound over the soak: judged on the second half only, by comparing the mean of the
 * last quarter of the samples with the mean of the third. The first half holds the start: V8 compiling its hot code,
 * and the heap keeping the start's garbage until its first full collection (about 1.5 minutes in, when RSS falls by
 * some 100 MB), which would make a short run's early figures look high. Means of quarters rather than single
 * samples, because one sample can fall on a collection; a least-squares slope over the second half is shown beside
 * them to read, not judged.
 */
import type { ProcessSample } from './metrics.js';

/** One sample window: each process's figures at its end, and the client's view of the window. */
export interface Sample {
  /** Seconds since the load began. */
  atSec: number;
  processes: ProcessSample[];
  /** Client-side latency of the paid calls answered in the window, ms (NaN when none were). */
  p50Ms: number;
  p99Ms: number;
  requests: number;
  polls: number;
  errors: number;
}

export interface Trend {
  /** e.g. `gateway 1 RSS MB`, `request p99 ms`. */
  name: string;
  /** Mean over the third quarter of the samples. */
  early: number;
  /** Mean over the last quarter. */
  late: number;
  /** Least-squares slope over the second half, per hour. */
  slopePerHour: number;
  threshold: string;
  grows: boolean;
}

/** What counts as growing, per figure. */
const RULES = {
  rss: { threshold: 'last quarter > 1.2 × third', grows: (e: number, l: number) => l > e * 1.2 },
  fds: { threshold: 'last quarter > third + 10', grows: (e: number, l: number) => l > e + 10 },
  // Latency depends on the machine's other load as much as on the gateway: only a doubling and 25 ms more counts.
  latency: {
    threshold: 'last quarter > 2 × third and + 25 ms',
    grows: (e: number, l: number) => l > e * 2 && l > e + 25,
  },
};

const mean = (values: number[]) => {
  const finite = values.filter(Number.isFinite);
  return finite.length === 0 ? Number.NaN : finite.reduce((a, b) => a + b, 0) / finite.length;
};

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function slopePerHour(points: [number, number][]): number {
  const finite = points.filter(([, y]) => Number.isFinite(y));
  if (finite.length < 2) return Number.NaN;
  const mx = mean(finite.map(([x]) => x));
  const my = mean(finite.map(([, y]) => y));
  const num = finite.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = finite.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return den === 0 ? 0 : (num / den) * 3_600;
}

function trend(samples: Sample[], name: string, read: (s: Sample) => number, rule: keyof typeof RULES): Trend {
  const n = samples.length;
  const values = samples.map(read);
  const early = mean(values.slice(Math.floor(n / 2), Math.floor((3 * n) / 4)));
  const late = mean(values.slice(Math.floor((3 * n) / 4)));
  const half = samples.slice(Math.floor(n / 2)).map((s): [number, number] => [s.atSec, read(s)]);
  const { threshold, grows } = RULES[rule];
  // A process that stopped answering shows as NaN: that is a failure too, not a gap the means would step over.
  const unanswered = half.some(([, value]) => !Number.isFinite(value));
  return { name, early, late, slopePerHour: slopePerHour(half), threshold, grows: unanswered || grows(early, late) };
}

/** The trends judged: RSS and open fds of each process, its event-loop delay, and the client's p99. */
export function trends(samples: Sample[]): Trend[] {
  const count = samples[0]?.processes.length ?? 0;
  const out: Trend[] = [];
  for (let i = 0; i < count; i++) {
    out.push(trend(samples, `gateway ${i} RSS MB`, (s) => s.processes[i]!.rssMb, 'rss'));
    out.push(trend(samples, `gateway ${i} open fds`, (s) => s.processes[i]!.fds, 'fds'));
    out.push(trend(samples, `gateway ${i} event-loop delay p99 ms`, (s) => s.processes[i]!.loopP99Ms, 'latency'));
  }
  out.push(trend(samples, 'request p99 ms', (s) => s.p99Ms, 'latency'));
  return out;
}

/** Fewer samples than this and the quarters are single samples or empty: the verdict would say nothing. */
export const MIN_SAMPLES = 8;
