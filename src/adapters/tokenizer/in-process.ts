import type { TokenWork } from './index.js';
import * as jobs from './token-jobs.js';

/** The in-process twin: the work runs on the caller's thread (tests, and the reference the pool is checked against). */
export class InProcessTokenWork implements TokenWork {
  async promptTokens(body: Record<string, unknown>): Promise<number> {
    return jobs.promptTokens(body);
  }

  async count(texts: readonly string[]): Promise<number[]> {
    return jobs.count(texts);
  }

  async truncate(texts: readonly string[], maxTokens: number): Promise<string[]> {
    return jobs.truncate({ texts, maxTokens });
  }

  async close(): Promise<void> {}
}
