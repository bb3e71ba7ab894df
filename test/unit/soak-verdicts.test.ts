/**
 * `make soak`'s verdicts (test/soak): what counts as growing without bound, and how a process's own figures are read
 * from its Prometheus text. The soak runs for half an hour outside `make test`; its judgement is checked here.
 */
import { describe, expect, it } from 'vitest';
import { parseMetrics } from '../soak/metrics.js';
import { type Sample, trends } from '../soak/trends.js';

/** `count` samples 10 s apart of one process whose RSS and fds follow `rss(i)` and `fds(i)`. */
const run = (count: number, rss: (i: number) => number, fds: (i: number) => number = () => 40): Sample[] =>
  Array.from({ length: count }, (_, i) => ({
    atSec: (i + 1) * 10,
    processes: [{ rssMb: rss(i), heapMb: 100, fds: fds(i), loopP99Ms: 12, loopMaxMs: 20 }],
    p50Ms: 6,
    p99Ms: 20 + (i % 3),
    requests: 200,
    polls: 20,
    errors: 0,
  }));

const growing = (samples: Sample[]) =>
  trends(samples)
    .filter((t) => t.grows)
    .map((t) => t.name);

describe('soak verdicts', () => {
  it('finds nothing growing in figures that see-saw, or fall after a start-up peak', () => {
    expect(growing(run(40, (i) => (i < 8 ? 360 : 255 + (i % 4) * 5)))).toEqual([]);
  });

  it('finds a leak in RSS that keeps climbing, and in descriptors that are never closed', () => {
    expect(growing(run(40, (i) => 250 + i * 10))).toEqual(['gateway 0 RSS MB']);
    expect(
      growing(
        run(
          40,
          () => 250,
          (i) => 40 + 2 * i,
        ),
      ),
    ).toEqual(['gateway 0 open fds']);
  });

  it('counts a process that stopped answering as a failure, not a flat line', () => {
    expect(growing(run(40, (i) => (i < 35 ? 250 : Number.NaN)))).toContain('gateway 0 RSS MB');
  });

  it('reads the process figures from prom-client text, in MB and ms', () => {
    const text = [
      '# HELP process_resident_memory_bytes Resident memory size in bytes.',
      'process_resident_memory_bytes 268435456',
      'nodejs_heap_size_used_bytes 115343360',
      'process_open_fds 37',
      'nodejs_eventloop_lag_p99_seconds 0.0125',
      'nodejs_eventloop_lag_max_seconds 0.02',
    ].join('\n');
    expect(parseMetrics(text)).toEqual({ rssMb: 256, heapMb: 110, fds: 37, loopP99Ms: 12.5, loopMaxMs: 20 });
    expect(parseMetrics('').fds).toBeNaN();
  });
});
