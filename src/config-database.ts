import { z } from 'zod';

/** The settings of the database the service keeps everything in, part of config.ts's schema. */
export const DATABASE_SETTINGS = {
  /** `sqlite:<path>` (embedded default) or `postgres://…`. */
  DATABASE_URL: z.string().min(1).default('sqlite:data/gateway.sqlite'),
  /**
   * SQLite durability: NORMAL (default) makes a commit durable once it is in the WAL, which a killed process never
   * loses; FULL adds an fsync per commit, so a power cut cannot take the last commits either.
   */
  SQLITE_SYNCHRONOUS: z.enum(['NORMAL', 'FULL']).default('NORMAL'),
  /** How often the WAL is checkpointed into the SQLite file, on a worker thread off the request path. */
  SQLITE_CHECKPOINT_MS: z.coerce.number().int().positive().default(100),
} as const;
