/**
 * The behavioural contract of the notifier port (src/adapters/notifier/index.ts), run against the memory twin, the
 * log notifier and the messenger bot (against a local fake of the Bot API): texts reach their chat exactly and in
 * order; where sending can fail, a failure is a NotifierError that says whether trying again can help and passes
 * on the messenger's retry hint.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Notifier, NotifierError } from '../../src/adapters/notifier/index.js';

/** Ways to make the next send fail as the messenger would. */
export interface Misbehaviour {
  rateLimited(retryAfterSec: number): void;
  down(): void;
  /** The chat exists no more, or blocked the bot. */
  refuseChat(chatId: string): void;
}

export interface NotifierUnderTest {
  notifier: Notifier;
  /** What reached the chats, in the order it arrived. */
  delivered(): { chatId: string; text: string }[];
  /** Null for a notifier whose sends cannot fail (the log). */
  misbehave: Misbehaviour | null;
  cleanup(): Promise<void>;
}

const failureOf = async (send: Promise<void>): Promise<NotifierError> => {
  const err = await send.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(NotifierError);
  return err as NotifierError;
};

export function notifierConformance(name: string, make: () => Promise<NotifierUnderTest>): void {
  describe(`Notifier conformance: ${name}`, () => {
    let subject: NotifierUnderTest;
    beforeEach(async () => {
      subject = await make();
    });
    afterEach(async () => {
      await subject.notifier.close();
      await subject.cleanup();
    });

    it('delivers each text to its chat, exactly and in order', async () => {
      const texts = [
        'Rental inst_a (2× RTX_4090) is running.',
        'Аренда остановлена: недостаточно средств\nвторая строка',
        'emoji ✅ and <b>markup-looking</b> text',
      ];
      await subject.notifier.send({ chatId: '123456789' }, texts[0]!);
      await subject.notifier.send({ chatId: '-1001234567890' }, texts[1]!);
      await subject.notifier.send({ chatId: '@rental_alerts' }, texts[2]!);
      expect(subject.delivered()).toEqual([
        { chatId: '123456789', text: texts[0] },
        { chatId: '-1001234567890', text: texts[1] },
        { chatId: '@rental_alerts', text: texts[2] },
      ]);
    });

    it('rate limited: a failure worth retrying, with the messenger’s hint; the next send goes through', async (context) => {
      if (subject.misbehave === null) return context.skip();
      subject.misbehave.rateLimited(3);
      const failure = await failureOf(subject.notifier.send({ chatId: '42' }, 'first'));
      expect(failure).toMatchObject({ permanent: false, retryAfterMs: 3000 });
      await subject.notifier.send({ chatId: '42' }, 'second');
      expect(subject.delivered()).toEqual([{ chatId: '42', text: 'second' }]);
    });

    it('the messenger down: a failure worth retrying, no hint, nothing delivered', async (context) => {
      if (subject.misbehave === null) return context.skip();
      subject.misbehave.down();
      const failure = await failureOf(subject.notifier.send({ chatId: '42' }, 'lost'));
      expect(failure.permanent).toBe(false);
      expect(failure.retryAfterMs).toBeUndefined();
      expect(subject.delivered()).toEqual([]);
    });

    it('a chat the messenger refuses for good: a permanent failure', async (context) => {
      if (subject.misbehave === null) return context.skip();
      subject.misbehave.refuseChat('777');
      const failure = await failureOf(subject.notifier.send({ chatId: '777' }, 'nobody home'));
      expect(failure.permanent).toBe(true);
      expect(subject.delivered()).toEqual([]);
    });
  });
}
