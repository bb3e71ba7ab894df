import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** WAL size at which the request path's connection checkpoints by itself, should the worker ever fall behind. */
export const BACKSTOP_CHECKPOINT_PAGES = 16_384;

/**
 * The worker thread's code, plain JavaScript (it runs the same from sources and from dist/): a connection of its
 * own that copies the WAL back into the database file every `intervalMs`. PASSIVE never waits on the request
 * path's connection (a busy moment is left to the next tick).
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.filename, { fileMustExist: true });
db.pragma('busy_timeout = 0');
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    parentPort.postMessage({ failed: err instanceof Error ? err.message : String(err) });
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Starts the checkpoint worker for a SQLite file: with `synchronous = NORMAL` a commit only appends to the WAL, and
 * the checkpoint (the copy back into the database file, with its fsyncs) runs on this thread, off the event loop.
 *
 * The WAL restarts from its beginning only when a writer finds it wholly copied, which under steady writes never
 * happens between the worker's checkpoint (milliseconds, with its fsyncs) and the next commit. So the request path's
 * connection still checkpoints once the WAL reaches BACKSTOP_CHECKPOINT_PAGES, and what that costs the event loop
 * is what the worker has not yet copied plus two fsyncs: with a checkpoint every second and ~900 paid requests a
 * second, 90-130 ms every second; every 100 ms, 25-45 ms (bench/README.md).
 */
export function startCheckpointer(
  filename: string,
  intervalMs: number,
  onFailure: (message: string) => void,
): { stop(): Promise<void> } {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: { filename, intervalMs, driver },
    // It runs one pragma a tick: a worker's default heap bounds only let its isolate hold more (bench/README.md).
    resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16, stackSizeMb: 1 },
  });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.unref();
  worker.on('message', (message: { failed?: string }) => message.failed !== undefined && onFailure(message.failed));
  worker.on('error', (err) => onFailure(err.message));
  return {
    async stop() {
      worker.postMessage('stop');
      await exited;
    },
  };
}
