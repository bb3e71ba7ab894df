/** A harness per describe block on one of the databases a suite runs on (HARNESS_DATABASES). */
import { afterAll, beforeAll } from 'vitest';
import type { HARNESS_DATABASES } from './databases.js';
import { type Harness, startHarness } from './harness.js';

type HarnessDatabase = (typeof HARNESS_DATABASES)[number];

/** Started before the block's tests on `database` with `env` added, closed and its database dropped after. */
export function harnessOn(
  database: HarnessDatabase,
  env: Record<string, string> = {},
  options: { now?: () => number } = {},
): () => Harness {
  let h: Harness | undefined;
  let drop: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    const opened = await database.open();
    drop = opened.drop;
    h = await startHarness({ ...opened.env, ...env }, options);
  });
  afterAll(async () => {
    await h?.close();
    await drop();
  });
  return () => h!;
}
