import type { Database } from '../db/connect.js';
import type { Redis } from './redis.js';

/** A part closed by `close()`, awaited when it answers a promise. */
interface Closable {
  close(): unknown;
}

/**
 * The parts of a running gateway, in the order they are shut down (main.ts drains HTTP first). Work producers
 * stop before what they write to: background tasks, the messenger and the mailer (a send under way finishes) and
 * sockets, then jobs and billing (their charges still land in the ledger), then the ledger's batch, then the
 * stores and pools, the database last.
 */
export interface ShutdownParts {
  background: { stop(): Promise<void> };
  notifier: Closable;
  mailer: Closable;
  sshSockets: { close(): Promise<void> } | null;
  registry: Closable;
  jobRunner: Closable;
  billing: Closable;
  ledger: { drain(): Promise<void> };
  keyUsage: { stop(): Promise<void> };
  jobs: Closable;
  tokenWork: Closable;
  clips: Closable;
  blobs: Closable;
  media: Closable;
  redis: Redis | null;
  checkpointer: { stop(): Promise<void> } | null;
  db: Database;
}

export async function shutDown(p: ShutdownParts): Promise<void> {
  await p.background.stop();
  await p.notifier.close();
  await p.mailer.close();
  await p.sshSockets?.close();
  await p.registry.close();
  await p.jobRunner.close();
  await p.billing.close();
  await p.ledger.drain();
  await p.keyUsage.stop();
  await p.jobs.close();
  await p.tokenWork.close();
  await p.clips.close();
  await p.blobs.close();
  await p.media.close();
  if (p.redis !== null) await p.redis.close().catch(() => undefined);
  await p.checkpointer?.stop();
  await p.db.knex.destroy();
}
