/**
 * The rental alert dispatcher (src/domain/market/rental-alerts.ts) on the memory twins with a hand-moved clock:
 * one alert per status change in order, at least once (a failed send retried, never duplicated), dropped after
 * MAX_ATTEMPTS or a permanent refusal, one sender among processes, and gaps in the ids waited for where they may fill.
 */
import { describe, expect, it } from 'vitest';
import type { AlertStore, RentalEvent } from '../../src/adapters/alert-store/index.js';
import { MemoryAlertStore, type RecordedChange } from '../../src/adapters/alert-store/memory.js';
import { type Notifier, NotifierError } from '../../src/adapters/notifier/index.js';
import { MemoryNotifier } from '../../src/adapters/notifier/memory.js';
import { MAX_ATTEMPTS, RentalAlerts } from '../../src/domain/market/rental-alerts.js';
import { sleep } from '../setup/time.js';

const T0 = 1_750_000_000_000;

function setup(store: MemoryAlertStore = new MemoryAlertStore(), notifier: Notifier = new MemoryNotifier()) {
  const clock = { now: T0 };
  const warnings: Record<string, unknown>[] = [];
  const logger = {
    info: () => undefined,
    warn: (fields: Record<string, unknown>, msg: string) => void warnings.push({ ...fields, msg }),
  };
  const make = () => new RentalAlerts({ store, notifier, now: () => clock.now, logger: logger as never });
  return { store, notifier, clock, warnings, alerts: make(), make };
}

let seq = 0;
function rental(store: MemoryAlertStore, accountId = 'acc_linked') {
  const instanceId = `inst_${++seq}`;
  const base = { instanceId, accountId, gpuName: 'RTX_4090', gpuCount: 2, machineId: 'mch_1', atMs: T0 };
  const write = (status: RecordedChange['status'], reason: RecordedChange['reason'] = null) =>
    store.record({ ...base, status, reason });
  write('pending');
  return { instanceId, write };
}

async function link(store: AlertStore, accountId = 'acc_linked', chatId = '42', rentalsEnabled = true) {
  await store.putTarget({ accountId, messengerChatId: chatId, rentalsEnabled, updatedAtMs: T0 });
}

/** PostgreSQL's view of the events: an id in `hidden` belongs to a transaction that has not committed (yet). */
class InFlightStore extends MemoryAlertStore {
  override readonly eventIdsCommitInOrder = false;
  readonly hidden = new Set<number>();

  override async rentalEventsAfter(afterId: number, limit: number): Promise<RentalEvent[]> {
    return (await super.rentalEventsAfter(afterId, limit + this.hidden.size))
      .filter((e) => !this.hidden.has(e.id))
      .slice(0, limit);
  }
}

describe('RentalAlerts', () => {
  it('one alert per status change, in order, to the linked chat; nothing for pending, unlinked or muted accounts', async () => {
    const { store, notifier, alerts } = setup();
    await link(store);
    await link(store, 'acc_muted', '7', false);
    const a = rental(store);
    const muted = rental(store, 'acc_muted');
    const unlinked = rental(store, 'acc_nobody');
    a.write('running');
    muted.write('running');
    unlinked.write('running');
    a.write('stopped', 'insufficient_balance');
    a.write('pending'); // started again
    a.write('running');
    const last = a.write('terminated', 'user');
    await alerts.run();
    expect((notifier as MemoryNotifier).sent).toEqual([
      { chatId: '42', text: `Rental ${a.instanceId} (2× RTX_4090) is running.` },
      {
        chatId: '42',
        text: `Rental ${a.instanceId} (2× RTX_4090) stopped: insufficient balance. Top up and start it again.`,
      },
      { chatId: '42', text: `Rental ${a.instanceId} (2× RTX_4090) is running.` },
      { chatId: '42', text: `Rental ${a.instanceId} (2× RTX_4090) was deleted.` },
    ]);
    expect(await store.readCursor()).toEqual({ lastEventId: last, attempts: 0 });
    await alerts.run(); // nothing new: nothing sent again
    expect((notifier as MemoryNotifier).sent).toHaveLength(4);
  });

  it('a failed send is retried at the next run, after the bot’s retry_after, and the later alerts wait for it', async () => {
    const { store, notifier, alerts, clock } = setup();
    const memory = notifier as MemoryNotifier;
    await link(store);
    const a = rental(store);
    const running = a.write('running');
    a.write('stopped', 'user');
    memory.failNext(new NotifierError('429', false, 3_000), new NotifierError('500', false));
    await alerts.run();
    expect(memory.sent).toEqual([]);
    expect(await store.readCursor()).toEqual({ lastEventId: running - 1, attempts: 1 });
    clock.now += 2_999;
    await alerts.run(); // not due yet
    expect(await store.readCursor()).toEqual({ lastEventId: running - 1, attempts: 1 });
    clock.now += 1;
    await alerts.run(); // the 500
    expect(await store.readCursor()).toEqual({ lastEventId: running - 1, attempts: 2 });
    await alerts.run();
    expect(memory.sent.map((m) => m.text)).toEqual([
      `Rental ${a.instanceId} (2× RTX_4090) is running.`,
      `Rental ${a.instanceId} (2× RTX_4090) stopped at your request; billing has ended.`,
    ]);
  });

  it(`drops an alert after ${MAX_ATTEMPTS} failed sends with a warning, and goes on with the next`, async () => {
    const { store, notifier, alerts, warnings } = setup();
    const memory = notifier as MemoryNotifier;
    await link(store);
    const a = rental(store);
    a.write('running');
    a.write('stopped', 'user');
    memory.failNext(...Array.from({ length: MAX_ATTEMPTS }, () => new NotifierError('down', false)));
    for (let i = 0; i < MAX_ATTEMPTS; i++) await alerts.run();
    expect(memory.sent.map((m) => m.text)).toEqual([
      `Rental ${a.instanceId} (2× RTX_4090) stopped at your request; billing has ended.`,
    ]);
    expect(warnings).toEqual([
      expect.objectContaining({
        instance_id: a.instanceId,
        attempt: MAX_ATTEMPTS,
        msg: `rental alert dropped after ${MAX_ATTEMPTS} failed sends`,
      }),
    ]);
  });

  it('drops an alert the messenger refuses for good at once, and delivers the next in the same run', async () => {
    const { store, notifier, alerts, warnings } = setup();
    const memory = notifier as MemoryNotifier;
    await link(store);
    const a = rental(store);
    a.write('running');
    a.write('stopped', 'user');
    memory.failNext(new NotifierError('chat not found', true));
    await alerts.run();
    expect(memory.sent).toHaveLength(1);
    expect(warnings).toEqual([
      expect.objectContaining({ attempt: 1, msg: 'rental alert dropped: the messenger refused it for good' }),
    ]);
  });

  it('two processes running at once never send one alert twice', async () => {
    const sent: string[] = [];
    // A slow messenger: each send takes a few ticks, so both processes' runs overlap.
    const slow: Notifier = {
      send: async (_t, text) => void (await sleep(2), sent.push(text)),
      close: async () => undefined,
    };
    const { store, make } = setup(new MemoryAlertStore(), slow);
    await link(store);
    const rentals = Array.from({ length: 10 }, () => rental(store));
    for (const r of rentals) r.write('running');
    const [p1, p2] = [make(), make()];
    for (let round = 0; round < 10; round++) await Promise.all([p1.run(), p2.run(), p1.run(), p2.run()]);
    expect(sent).toEqual(rentals.map((r) => `Rental ${r.instanceId} (2× RTX_4090) is running.`));
  });

  it('where ids may commit out of order, a gap is waited for: filled, its event goes first; never filled, it is passed after the wait', async () => {
    const store = new InFlightStore();
    const { hidden } = store;
    const { notifier, alerts, clock } = setup(store);
    const memory = notifier as MemoryNotifier;
    await link(store);
    const a = rental(store);
    const b = rental(store);
    const inFlight = a.write('running');
    hidden.add(inFlight);
    b.write('running');
    await alerts.run();
    expect(memory.sent).toEqual([]);
    hidden.delete(inFlight); // committed
    await alerts.run();
    expect(memory.sent.map((m) => m.text)).toEqual([
      `Rental ${a.instanceId} (2× RTX_4090) is running.`,
      `Rental ${b.instanceId} (2× RTX_4090) is running.`,
    ]);

    const rolledBack = a.write('stopped', 'user');
    hidden.add(rolledBack); // never commits
    b.write('stopped', 'user');
    await alerts.run();
    clock.now += 9_999;
    await alerts.run();
    expect(memory.sent).toHaveLength(2);
    clock.now += 1;
    await alerts.run();
    expect(memory.sent.map((m) => m.text).slice(2)).toEqual([
      `Rental ${b.instanceId} (2× RTX_4090) stopped at your request; billing has ended.`,
    ]);
  });

  it('on a store whose ids commit in order, a gap (a rental removed with its history) is passed at once', async () => {
    const { store, notifier, alerts } = setup();
    await link(store);
    const undone = rental(store);
    const a = rental(store);
    store.removeInstance(undone.instanceId);
    a.write('running');
    await alerts.run();
    expect((notifier as MemoryNotifier).sent).toHaveLength(1);
  });
});
