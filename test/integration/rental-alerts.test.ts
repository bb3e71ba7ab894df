/**
 * Rental status alerts end to end (SPEC 6.3; docs/marketplace.md: rental alerts): two gateway processes on one
 * database (an SQLite file, then PostgreSQL), both running the dispatcher every 25 ms against a local fake of the
 * messenger Bot API. A renter links a chat, rents, the agent reports the container running, the renter stops and
 * deletes it: the fake receives exactly one message per status change, in order, although the first send was
 * answered 429 (retry_after 1 s) and then 500 and had to be retried. An account without a linked chat, and one that
 * turned rental alerts off, get nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { type FakeMessengerBot, startFakeMessengerBot } from '../fixtures/fake-messenger-bot.js';
import { HARNESS_DATABASES } from '../setup/databases.js';
import { expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { newProvider, runningRental } from '../setup/market.js';
import { pollUntil } from '../setup/polling.js';
import { sleep } from '../setup/time.js';

/** Two processes need one database: an SQLite file (the in-memory default is private to a process), or PostgreSQL. */
const SHARED_DATABASES = [
  {
    name: 'an SQLite file',
    open: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'cgw-alerts-'));
      return {
        env: { DATABASE_URL: `sqlite:${join(dir, 'gateway.sqlite')}` } as Record<string, string>,
        drop: async () => rmSync(dir, { recursive: true, force: true }),
      };
    },
  },
  HARNESS_DATABASES.find((d) => d.name === 'PostgreSQL')!,
];

describe.each(SHARED_DATABASES)('rental alerts, two gateway processes on $name', ({ open }) => {
  let bot: FakeMessengerBot;
  let h: Harness;
  let other: Harness;
  let drop: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    bot = await startFakeMessengerBot();
    const database = await open();
    drop = database.drop;
    const env = {
      ...database.env,
      MESSENGER_BOT_TOKEN: bot.token,
      MESSENGER_API_BASE: bot.url,
      ALERTS_INTERVAL_MS: '25',
    };
    h = await startHarness(env);
    other = await startHarness(env); // a second process: it races `h` for every alert
  });
  afterAll(async () => {
    await other?.close();
    await h?.close();
    await bot?.close();
    await drop();
  });

  const link = async (apiKey: string, body: Record<string, unknown>) =>
    expectNativeOk(await call(h.baseUrl, 'PUT', '/v1/settings/notifications', { key: apiKey, body }));
  const act = async (apiKey: string, method: string, path: string) =>
    expectNativeOk(await call(h.baseUrl, method, path, { key: apiKey }));

  /** Until the shared cursor has passed every rental event written so far, then a few more runs of both processes. */
  async function allAlerted(): Promise<void> {
    const row = (await h.deps.db.knex('instance_events').max({ id: 'id' }).first()) as { id: number | bigint };
    const last = Number(row.id);
    const cursor = await pollUntil(
      () => h.deps.alerts.readCursor(),
      (read) => read.lastEventId >= last,
      { withinMs: 10_000 },
    );
    if (cursor.lastEventId < last) throw new Error(`alerts stuck at ${JSON.stringify(cursor)}, last event ${last}`);
    await sleep(150); // ~6 more runs each: nothing may be sent twice
  }

  it('one message per status change, in order, to the linked chat; a failed send is retried and never duplicated', async () => {
    const gpu = newId('g');
    const provider = await newProvider(h, { gpu_name: gpu });
    const renter = await h.newAccount(undefined, { balanceUsd: 100 });
    const unlinked = await h.newAccount(undefined, { balanceUsd: 100 });
    await link(renter.apiKey, { messenger_chat_id: '100200300', rentals: true });
    const sentBefore = bot.messages.length;
    const requestsBefore = bot.requests;
    bot.failNext({ status: 429, retryAfterSec: 1 }, { status: 500 });

    const rental = await runningRental(h, renter.apiKey, provider, { gpu_count: 2, pricing_type: 'hour' });
    const quiet = await runningRental(h, unlinked.apiKey, await newProvider(h, { gpu_name: gpu }), {
      gpu_count: 1,
      pricing_type: 'hour',
    });
    await act(renter.apiKey, 'POST', `/v1/instances/${rental.task_id}/stop`);
    await act(unlinked.apiKey, 'POST', `/v1/instances/${quiet.task_id}/stop`);
    await act(renter.apiKey, 'DELETE', `/v1/instances/${rental.task_id}`);
    await allAlerted();

    const sent = bot.messages.slice(sentBefore);
    expect(sent.map((m) => [m.chatId, m.text])).toEqual([
      ['100200300', `Rental ${rental.task_id} (2× ${gpu}) is running.`],
      ['100200300', `Rental ${rental.task_id} (2× ${gpu}) stopped at your request; billing has ended.`],
      ['100200300', `Rental ${rental.task_id} (2× ${gpu}) was deleted.`],
    ]);
    expect(sent[0]!.body).toEqual({ chat_id: '100200300', text: sent[0]!.text, disable_web_page_preview: true });
    expect(bot.requests - requestsBefore).toBe(sent.length + 2); // the 429 and the 500, each tried again once
    expect(bot.messages.some((m) => m.text.includes(quiet.task_id))).toBe(false);
    expect(h.logs.concat(other.logs).filter((l) => String(l.msg).startsWith('rental alert'))).toEqual([]); // nothing dropped
  });

  it('rental alerts off, or the chat unlinked: nothing is sent; linked again, the next change is', async () => {
    const gpu = newId('g');
    const provider = await newProvider(h, { gpu_name: gpu });
    const renter = await h.newAccount(undefined, { balanceUsd: 100 });
    await link(renter.apiKey, { messenger_chat_id: '@gpu_alerts', rentals: false });
    const sentBefore = bot.messages.length;
    const rental = await runningRental(h, renter.apiKey, provider, { pricing_type: 'hour' });
    await allAlerted();
    await link(renter.apiKey, { messenger_chat_id: null, rentals: true });
    await act(renter.apiKey, 'POST', `/v1/instances/${rental.task_id}/stop`);
    await allAlerted();
    expect(bot.messages.length).toBe(sentBefore);

    await link(renter.apiKey, { messenger_chat_id: '@gpu_alerts', rentals: true });
    await act(renter.apiKey, 'DELETE', `/v1/instances/${rental.task_id}`);
    await allAlerted();
    expect(bot.messages.slice(sentBefore).map((m) => [m.chatId, m.text])).toEqual([
      ['@gpu_alerts', `Rental ${rental.task_id} (1× ${gpu}) was deleted.`],
    ]);
  });
});
