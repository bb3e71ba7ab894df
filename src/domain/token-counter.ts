import type { TokenWork } from '../adapters/tokenizer/index.js';
import { charsUpTo, countTokens, estimatePromptTokens, INLINE_TOKENIZE_CHARS, truncateToTokens } from './tokens.js';

export interface TokenizeOptions {
  /**
   * Runs before work too long for the event loop, and may refuse it by throwing: the caller's chance to check what
   * is cheap first (an account that cannot pay even the smallest hold is told so before its megabytes are counted).
   */
  beforeHeavy?: () => Promise<void>;
}

/** Where text was counted, for `gateway_tokenized_chars_total`. */
export type TokenizeThread = 'event_loop' | 'worker';

/**
 * Token counting on the request path. Short text (up to INLINE_TOKENIZE_CHARS, a few milliseconds at worst) is
 * counted here; longer text goes to `heavy` (worker threads), so one large prompt never stalls every other request.
 */
export class TokenCounter {
  constructor(
    private readonly heavy: TokenWork,
    private readonly onCounted: (thread: TokenizeThread, chars: number) => void = () => undefined,
  ) {}

  /** estimatePromptTokens of a chat body. */
  promptTokens(body: Record<string, unknown>, options: TokenizeOptions = {}): Promise<number> {
    return this.#route(body, options, () => estimatePromptTokens(body), () => this.heavy.promptTokens(body));
  }

  /** countTokens of each text. */
  count(texts: readonly string[], options: TokenizeOptions = {}): Promise<number[]> {
    return this.#route(texts, options, () => texts.map(countTokens), () => this.heavy.count(texts));
  }

  /** truncateToTokens of each text. */
  truncate(texts: readonly string[], maxTokens: number, options: TokenizeOptions = {}): Promise<string[]> {
    return this.#route(texts, options, () => texts.map((text) => truncateToTokens(text, maxTokens)), () => this.heavy.truncate(texts, maxTokens));
  }

  async #route<T>(input: unknown, options: TokenizeOptions, inline: () => T, offLoop: () => Promise<T>): Promise<T> {
    const chars = charsUpTo(input, INLINE_TOKENIZE_CHARS);
    if (chars <= INLINE_TOKENIZE_CHARS) {
      this.onCounted('event_loop', chars);
      return inline();
    }
    await options.beforeHeavy?.();
    this.onCounted('worker', charsUpTo(input, Number.POSITIVE_INFINITY));
    // A pool that fails (a crashed thread, a shutdown) must not strand a hold: count here rather than not at all.
    return offLoop().catch(() => inline());
  }
}
