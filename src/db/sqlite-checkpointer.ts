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
 * Starts the checkpoint worker for a SQLite file (README "Durability"): with `synchronous = NORMAL` a commit only
 * appends to the WAL, and the checkpoint (the copy back into the database, with its fsyncs) runs on this thread,
 * off the event loop, instead of inside whichever request's commit crossed the auto-checkpoint size.
 */
export function startCheckpointer(filename: string, intervalMs: number, onFailure: (message: string) => void): { stop(): Promise<void> } {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER, { eval: true, workerData: { filename, intervalMs, driver } });
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
