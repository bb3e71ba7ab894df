/**
 * The tokenizer port: token work too long for the event loop (issue "a hostile client costs nothing": no request
 * may hold the loop for more than a few milliseconds). The in-process twin does the work where it is called; the
 * worker pool does it on other threads. Both count exactly as src/domain/text/token-counting.ts does.
 */
export interface TokenWork {
  /** estimatePromptTokens of a chat body. */
  promptTokens(body: Record<string, unknown>): Promise<number>;
  /** countTokens of each text. */
  count(texts: readonly string[]): Promise<number[]>;
  /** truncateToTokens of each text. */
  truncate(texts: readonly string[], maxTokens: number): Promise<string[]>;
  close(): Promise<void>;
}

/** A task ran past the pool's time cap and was stopped: nothing was counted. */
export class TokenWorkTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`token work stopped after ${timeoutMs} ms`);
    this.name = 'TokenWorkTimeout';
  }
}

export { InProcessTokenWork } from './in-process.js';
export { WorkerPoolTokenWork } from './worker-pool.js';
