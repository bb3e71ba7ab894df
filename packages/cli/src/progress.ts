/**
 * What a person sees while a job runs (DESIGN.md 12: jobs with progress): a progress bar on stderr driven by the
 * job's `progress` (percent, when the upstream reports it) and `status`, and spinners for waits with no measure.
 * Only when stderr is a terminal and not `--json`, so pipes and logs get clean output.
 */
import { Presets, SingleBar } from 'cli-progress';
import ora from 'ora';

export interface JobView {
  status: string;
  progress?: number | null;
}

export interface JobDisplay {
  update(job: JobView): void;
  stop(): void;
}

const silent: JobDisplay = { update: () => undefined, stop: () => undefined };

export function jobDisplay(label: string, enabled: boolean): JobDisplay {
  if (!enabled) return silent;
  const bar = new SingleBar(
    {
      stream: process.stderr,
      format: `${label} [{bar}] {percentage}% | {status} | {duration}s`,
      hideCursor: true,
      clearOnComplete: false,
      barsize: 30,
    },
    Presets.shades_classic,
  );
  bar.start(100, 0, { status: 'starting' });
  let stopped = false;
  return {
    update(job) {
      // Upstreams that report no percent leave the bar where it was; a finished job fills it.
      const value = job.status === 'completed' ? 100 : (job.progress ?? undefined);
      if (value === undefined) bar.update({ status: job.status });
      else bar.update(Math.max(0, Math.min(100, value)), { status: job.status });
    },
    stop() {
      if (stopped) return;
      stopped = true;
      bar.stop();
    },
  };
}

/** Runs `work` under a spinner (downloads, a kickoff) when a person is watching. */
export async function withSpinner<T>(text: string, enabled: boolean, work: () => Promise<T>): Promise<T> {
  if (!enabled) return work();
  const spinner = ora({ text, stream: process.stderr }).start();
  try {
    const result = await work();
    spinner.succeed();
    return result;
  } catch (error) {
    spinner.fail();
    throw error;
  }
}
