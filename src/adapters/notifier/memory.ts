import type { Notifier, NotifierError, NotifyTarget } from './index.js';

/**
 * The in-memory twin of the notifier port, for tests: it records what was sent, and fails the next sends the way
 * the bot adapter does when told to (the conformance suite holds the two to the same error shapes).
 */
export class MemoryNotifier implements Notifier {
  readonly sent: { chatId: string; text: string }[] = [];
  readonly #failures: NotifierError[] = [];

  /** The next sends throw these, one each, in order. */
  failNext(...failures: NotifierError[]): void {
    this.#failures.push(...failures);
  }

  async send(target: NotifyTarget, text: string): Promise<void> {
    const failure = this.#failures.shift();
    if (failure !== undefined) throw failure;
    this.sent.push({ chatId: target.chatId, text });
  }

  async close(): Promise<void> {}
}
