/** The tokenizer conformance suite on the in-process twin and on the worker-thread pool the service uses. */
import { describe, expect, it } from 'vitest';
import { InProcessTokenWork } from '../../src/adapters/tokenizer/in-process.js';
import { TokenWorkTimeout } from '../../src/adapters/tokenizer/index.js';
import { WorkerPoolTokenWork } from '../../src/adapters/tokenizer/worker-pool.js';
import { tokenWorkConformance } from './token-work.conformance.js';

tokenWorkConformance('in process', () => new InProcessTokenWork());
tokenWorkConformance('worker pool', () => new WorkerPoolTokenWork({ threads: 2, taskTimeoutMs: 60_000 }));

describe('worker pool: time cap', () => {
  it('a task past its time cap is stopped and fails with TokenWorkTimeout', async () => {
    const pool = new WorkerPoolTokenWork({ threads: 1, taskTimeoutMs: 1 });
    try {
      await expect(pool.count(['word '.repeat(400_000)])).rejects.toBeInstanceOf(TokenWorkTimeout);
    } finally {
      await pool.close();
    }
  });
});
