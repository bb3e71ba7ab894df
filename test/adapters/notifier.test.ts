import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NotifierError } from '../../src/adapters/notifier/index.js';
import { LogNotifier } from '../../src/adapters/notifier/log.js';
import { MemoryNotifier } from '../../src/adapters/notifier/memory.js';
import { MessengerBotNotifier } from '../../src/adapters/notifier/messenger-bot.js';
import { type FakeMessengerBot, startFakeMessengerBot } from '../fixtures/fake-messenger-bot.js';
import { notifierConformance } from './notifier.conformance.js';

notifierConformance('memory', async () => {
  const notifier = new MemoryNotifier();
  return {
    notifier,
    delivered: () => notifier.sent,
    misbehave: {
      rateLimited: (sec) => notifier.failNext(new NotifierError('rate limited', false, sec * 1000)),
      down: () => notifier.failNext(new NotifierError('down', false)),
      refuseChat: () => notifier.failNext(new NotifierError('chat not found', true)),
    },
    cleanup: async () => {},
  };
});

notifierConformance('log', async () => {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return {
    notifier: new LogNotifier(logger),
    delivered: () => lines.map((l) => ({ chatId: l.chat_id as string, text: l.alert as string })),
    misbehave: null,
    cleanup: async () => {},
  };
});

notifierConformance('messenger bot', async () => {
  const bot = await startFakeMessengerBot();
  return {
    notifier: new MessengerBotNotifier({ token: bot.token, baseUrl: bot.url }),
    delivered: () => bot.messages.map(({ chatId, text }) => ({ chatId, text })),
    misbehave: {
      rateLimited: (retryAfterSec) => bot.failNext({ status: 429, retryAfterSec }),
      down: () => bot.failNext({ status: 500 }),
      refuseChat: (chatId) => void bot.unknownChats.add(chatId),
    },
    cleanup: () => bot.close(),
  };
});

describe('MessengerBotNotifier: the Bot API wire format', () => {
  let bot: FakeMessengerBot;
  const notifiers: MessengerBotNotifier[] = [];
  const notifier = (options: Partial<ConstructorParameters<typeof MessengerBotNotifier>[0]> = {}) => {
    const made = new MessengerBotNotifier({ token: bot.token, baseUrl: bot.url, ...options });
    notifiers.push(made);
    return made;
  };
  beforeEach(async () => {
    bot = await startFakeMessengerBot();
  });
  afterEach(async () => {
    for (const n of notifiers.splice(0)) await n.close();
    await bot.close();
  });

  it('POSTs {chat_id, text, disable_web_page_preview: true} to /bot<token>/sendMessage; a trailing slash on the base is fine', async () => {
    await notifier({ baseUrl: `${bot.url}/` }).send({ chatId: '123' }, 'hello https://example.com');
    expect(bot.messages).toEqual([
      {
        chatId: '123',
        text: 'hello https://example.com',
        body: { chat_id: '123', text: 'hello https://example.com', disable_web_page_preview: true },
      },
    ]);
  });

  it('403 (the bot was blocked) is permanent, with the Bot API’s description; the token never appears in it', async () => {
    bot.blockedChats.add('555');
    const err = (await notifier()
      .send({ chatId: '555' }, 'x')
      .catch((e: unknown) => e)) as NotifierError;
    expect(err).toBeInstanceOf(NotifierError);
    expect(err.permanent).toBe(true);
    expect(err.message).toContain('403: Forbidden: bot was blocked by the user');
    expect(err.message).not.toContain(bot.token);
  });

  it('a wrong token (401) is worth retrying: the operator fixes it, not the message', async () => {
    const err = (await notifier({ token: '999:wrong' })
      .send({ chatId: '1' }, 'x')
      .catch((e: unknown) => e)) as NotifierError;
    expect(err).toMatchObject({ permanent: false });
    expect(err.message).toContain('401: Unauthorized');
    expect(err.message).not.toContain('999:wrong');
  });

  it('an answer slower than the budget is a timeout worth retrying', async () => {
    bot.delayMs = 2_000;
    const err = (await notifier({ budgetMs: 100 })
      .send({ chatId: '1' }, 'x')
      .catch((e: unknown) => e)) as NotifierError;
    expect(err).toMatchObject({ permanent: false });
    expect(err.message).toContain('timeout');
  });

  it('a bot API that refuses connections is worth retrying', async () => {
    const url = bot.url;
    await bot.close();
    const err = (await notifier({ baseUrl: url })
      .send({ chatId: '1' }, 'x')
      .catch((e: unknown) => e)) as NotifierError;
    expect(err).toMatchObject({ permanent: false });
    bot = await startFakeMessengerBot(); // for afterEach
  });

  it('refuses a base URL that is not http(s) at construction', () => {
    expect(() => new MessengerBotNotifier({ token: 't', baseUrl: 'ftp://bot.example' })).toThrow(/http or https/);
  });
});
