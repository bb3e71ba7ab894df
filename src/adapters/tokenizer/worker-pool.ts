import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { type TokenWork, TokenWorkTimeout } from './index.js';

/** The jobs' module: compiled beside this one in a build; from source, through a loader that reads TypeScript. */
const JOBS_FILE = new URL(
  extname(fileURLToPath(import.meta.url)) === '.ts' ? './token-jobs-from-source.mjs' : './token-jobs.js',
  import.meta.url,
);

/** Threads stop after this long without work, so an idle gateway (or a test) keeps none. */
const IDLE_TIMEOUT_MS = 30_000;

export interface WorkerPoolSettings {
  threads: number;
  /** A task still running after this long is stopped (its thread is terminated and replaced): TokenWorkTimeout. */
  taskTimeoutMs: number;
}

/**
 * Token work on a pool of worker threads (piscina), started on first use. Who goes first and how many may wait is
 * the caller's business (TokenCounter's fair queue); the pool bounds how long one task may hold a thread.
 */
export class WorkerPoolTokenWork implements TokenWork {
  #pool: Piscina | null = null;

  constructor(private readonly settings: WorkerPoolSettings) {}

  promptTokens(body: Record<string, unknown>): Promise<number> {
    return this.#run('promptTokens', body);
  }

  count(texts: readonly string[]): Promise<number[]> {
    return this.#run('count', texts);
  }

  truncate(texts: readonly string[], maxTokens: number): Promise<string[]> {
    return this.#run('truncate', { texts, maxTokens });
  }

  async close(): Promise<void> {
    const pool = this.#pool;
    this.#pool = null;
    await pool?.destroy();
  }

  async #run<T>(name: string, task: unknown): Promise<T> {
    this.#pool ??= new Piscina({
      filename: JOBS_FILE.href,
      minThreads: 0,
      maxThreads: this.settings.threads,
      idleTimeout: IDLE_TIMEOUT_MS,
    });
    const { taskTimeoutMs } = this.settings;
    try {
      return (await this.#pool.run(task, { name, signal: AbortSignal.timeout(taskTimeoutMs) })) as T;
    } catch (err) {
      // piscina rejects an aborted task with its own AbortError after terminating the thread that ran it.
      if (err instanceof Error && err.name === 'AbortError') throw new TokenWorkTimeout(taskTimeoutMs);
      throw err;
    }
  }
}
