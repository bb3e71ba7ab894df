import { type TokenWork, TokenWorkTimeout } from '../../adapters/tokenizer/index.js';
import {
  charsUpTo,
  countTokens,
  estimatePromptTokens,
  INLINE_TOKENIZE_CHARS,
  truncateToTokens,
} from '../../lib/token-count.js';
import { type FairQueueSettings, FairTaskQueue, tokenizerBusy } from './fair-task-queue.js';

export interface TokenizeOptions {
  /**
   * Whose text it is (an account id): worker threads serve owners in turn (FairTaskQueue). Absent: the gateway's own
   * line, for text it counts of its own accord (a sandbox upstream's reply).
   */
  owner?: string;
  /**
   * Runs before anything is counted, here or on a worker, and refuses by throwing (issue 23: nothing is counted
   * before the account is shown able to pay the request's floor). Absent only where a hold already shows it.
   */
  floorCheck?: () => Promise<void>;
}

/** Where text was counted, for `gateway_tokenized_chars_total`. */
export type TokenizeThread = 'event_loop' | 'worker';

/**
 * Token counting on the request path. Short text (up to INLINE_TOKENIZE_CHARS, a few milliseconds at worst since
 * counting is linear, lib/token-count.ts) is counted here; longer text goes to `heavy` (worker threads), so one large prompt
 * never stalls every other request. Worker tasks wait in a bounded, per-account fair line: a full line or a task
 * past its time cap answers 503 tokenizer_busy, before any hold, so nothing is charged.
 */
export class TokenCounter {
  private readonly queue: FairTaskQueue;
  private readonly onCounted: (thread: TokenizeThread, chars: number) => void;

  /** `queue`: the worker threads and how many tasks may wait for them (config TOKENIZER_*); unbounded when absent. */
  constructor(
    private readonly heavy: TokenWork,
    options: { queue?: FairQueueSettings; onCounted?: (thread: TokenizeThread, chars: number) => void } = {},
  ) {
    this.queue = new FairTaskQueue(
      options.queue ?? {
        concurrency: 1,
        maxWaiting: Number.POSITIVE_INFINITY,
        maxWaitingPerOwner: Number.POSITIVE_INFINITY,
      },
    );
    this.onCounted = options.onCounted ?? (() => undefined);
  }

  /** estimatePromptTokens of a chat body. */
  promptTokens(body: Record<string, unknown>, options: TokenizeOptions = {}): Promise<number> {
    return this.#route(
      body,
      options,
      () => estimatePromptTokens(body),
      () => this.heavy.promptTokens(body),
    );
  }

  /** countTokens of each text. */
  count(texts: readonly string[], options: TokenizeOptions = {}): Promise<number[]> {
    return this.#route(
      texts,
      options,
      () => texts.map(countTokens),
      () => this.heavy.count(texts),
    );
  }

  /** truncateToTokens of each text. */
  truncate(texts: readonly string[], maxTokens: number, options: TokenizeOptions = {}): Promise<string[]> {
    return this.#route(
      texts,
      options,
      () => texts.map((text) => truncateToTokens(text, maxTokens)),
      () => this.heavy.truncate(texts, maxTokens),
    );
  }

  async #route<T>(input: unknown, options: TokenizeOptions, inline: () => T, offLoop: () => Promise<T>): Promise<T> {
    await options.floorCheck?.();
    const chars = charsUpTo(input, INLINE_TOKENIZE_CHARS);
    if (chars <= INLINE_TOKENIZE_CHARS) {
      this.onCounted('event_loop', chars);
      return inline();
    }
    this.onCounted('worker', charsUpTo(input, Number.POSITIVE_INFINITY));
    return this.queue.run(options.owner ?? '', () =>
      offLoop().catch((err: unknown) => {
        if (err instanceof TokenWorkTimeout) {
          throw tokenizerBusy(`Counting this request's text took longer than ${err.timeoutMs} ms; nothing was charged`);
        }
        // A pool that fails otherwise (a crashed thread, a shutdown) must not strand a hold: count here rather than not at all.
        return inline();
      }),
    );
  }
}
