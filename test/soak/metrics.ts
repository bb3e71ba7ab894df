/**
 * What one gateway process says of itself on `GET /metrics` (Prometheus text, loopback only: src/http/metrics-access.ts),
 * from prom-client's default metrics (src/composition/index.ts). prom-client resets its event-loop delay histogram
 * each time it is read, so the delay figures cover the time since the previous sample: the soak is the only reader.
 */
import { request } from 'undici';

export interface ProcessSample {
  /** Resident memory (process_resident_memory_bytes), MB; NaN when the process did not answer. */
  rssMb: number;
  /** V8 heap in use (nodejs_heap_size_used_bytes), MB. */
  heapMb: number;
  /** Open file descriptors (process_open_fds): sockets, files, pipes. */
  fds: number;
  /**
   * Event-loop delay since the last sample, p99 and max, ms (nodejs_eventloop_lag_p99_seconds, _max_seconds).
   * prom-client samples the loop every 10 ms, and each reading includes that interval: 10 ms is an idle loop.
   */
  loopP99Ms: number;
  loopMaxMs: number;
}

const UNANSWERED: ProcessSample = {
  rssMb: Number.NaN,
  heapMb: Number.NaN,
  fds: Number.NaN,
  loopP99Ms: Number.NaN,
  loopMaxMs: Number.NaN,
};

/** The value of an unlabelled metric in Prometheus text, NaN when absent. */
export function metricValue(text: string, name: string): number {
  const match = new RegExp(`^${name} (\\S+)`, 'm').exec(text);
  return match === null ? Number.NaN : Number(match[1]);
}

export function parseMetrics(text: string): ProcessSample {
  const mb = (name: string) => metricValue(text, name) / 1_048_576;
  const ms = (name: string) => metricValue(text, name) * 1_000;
  return {
    rssMb: mb('process_resident_memory_bytes'),
    heapMb: mb('nodejs_heap_size_used_bytes'),
    fds: metricValue(text, 'process_open_fds'),
    loopP99Ms: ms('nodejs_eventloop_lag_p99_seconds'),
    loopMaxMs: ms('nodejs_eventloop_lag_max_seconds'),
  };
}

/** One process's figures now; all NaN when it does not answer within 10 s (a dead or stuck process). */
export async function sampleProcess(baseUrl: string): Promise<ProcessSample> {
  try {
    const { statusCode, body } = await request(`${baseUrl}/metrics`, {
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    const text = await body.text();
    return statusCode === 200 ? parseMetrics(text) : UNANSWERED;
  } catch {
    return UNANSWERED;
  }
}
