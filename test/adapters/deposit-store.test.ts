import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DepositStore, NewDeposit } from '../../src/adapters/deposit-store/index.js';
import { MemoryDepositStore } from '../../src/adapters/deposit-store/memory.js';
import { SqlDepositStore } from '../../src/adapters/deposit-store/sql.js';
import { newId } from '../../src/lib/ids.js';
import { postgresSchema, sqliteMemory } from '../setup/databases.js';

const T0 = 1_750_000_000_000;

function deposit(overrides: Partial<NewDeposit> = {}): NewDeposit {
  return {
    id: newId('dep'),
    accountId: newId('acc'),
    method: 'card',
    processor: 'stripe',
    processorRef: null,
    status: 'pending',
    amountMinor: 2_500n,
    currency: 'usd',
    checkoutUrl: null,
    address: null,
    txId: null,
    createdAtMs: T0,
    ...overrides,
  };
}

const credit = (micros: bigint, extra = {}) => ({
  creditedMicros: micros,
  amountMinor: micros / 10_000n,
  fxRateRubMicro: null,
  chargeRef: `pi_${newId('x')}`,
  atMs: T0 + 5,
  ...extra,
});

function conformance(name: string, make: () => Promise<{ store: DepositStore; cleanup: () => Promise<void> }>) {
  describe(`DepositStore conformance: ${name}`, () => {
    let subject: Awaited<ReturnType<typeof make>>;
    beforeAll(async () => {
      subject = await make();
    });
    afterAll(() => subject.cleanup());
    const store = () => subject.store;

    it('creates a deposit, finds it by id, by processor ref once attached, and by charge ref once credited', async () => {
      const created = await store().create(deposit());
      expect(created.ok).toBe(true);
      const { id } = created.ok ? created.deposit : { id: '' };
      const ref = `cs_${newId('r')}`;
      expect(
        await store().attachCheckout(id, { processorRef: ref, checkoutUrl: 'https://pay.example/x' }, T0 + 1),
      ).toBe(true);
      expect(await store().attachCheckout(id, { processorRef: 'cs_other', checkoutUrl: 'x' }, T0 + 2)).toBe(false);
      expect(await store().findByRef('stripe', ref)).toMatchObject({ id, checkoutUrl: 'https://pay.example/x' });
      const credited = credit(25_000_000n);
      expect(await store().markCredited(id, credited)).toBe(true);
      expect(await store().findByChargeRef('stripe', credited.chargeRef)).toMatchObject({
        id,
        status: 'credited',
        creditedMicros: 25_000_000n,
        refundedMicros: 0n,
        creditedAtMs: T0 + 5,
      });
      expect(await store().get('dep_missing')).toBeNull();
    });

    it('refuses a second deposit for one processor ref: an event lands once', async () => {
      const ref = `tx_${newId('t')}:0`;
      const first = await store().create(deposit({ processor: 'tron', processorRef: ref, currency: 'usdt' }));
      expect(first.ok).toBe(true);
      expect(await store().create(deposit({ processor: 'tron', processorRef: ref, currency: 'usdt' }))).toEqual({
        ok: false,
        reason: 'ref_taken',
      });
      expect((await store().create(deposit({ processor: 'stripe', processorRef: ref }))).ok).toBe(true);
    });

    it('credits once: of concurrent credits exactly one wins; a closed deposit is never credited', async () => {
      const created = await store().create(deposit());
      const id = created.ok ? created.deposit.id : '';
      const wins = await Promise.all(Array.from({ length: 6 }, () => store().markCredited(id, credit(1_000_000n))));
      expect(wins.filter(Boolean)).toHaveLength(1);
      const closed = await store().create(deposit());
      const closedId = closed.ok ? closed.deposit.id : '';
      expect(await store().markClosed(closedId, 'expired', T0 + 1)).toBe(true);
      expect(await store().markClosed(closedId, 'failed', T0 + 2)).toBe(false);
      expect(await store().markCredited(closedId, credit(1n))).toBe(false);
      expect((await store().get(closedId))?.status).toBe('expired');
    });

    it('a transfer claims the oldest awaiting deposit of its account, and only once', async () => {
      const accountId = newId('acc');
      const usdt = { accountId, method: 'usdt_trc20' as const, processor: 'tron' as const, currency: 'usdt' as const };
      const older = await store().create(deposit({ ...usdt, status: 'awaiting_transfer', createdAtMs: T0 }));
      await store().create(deposit({ ...usdt, status: 'awaiting_transfer', createdAtMs: T0 + 10 }));
      const oldest = await store().oldestAwaiting(accountId);
      expect(oldest?.id).toBe(older.ok ? older.deposit.id : '');
      const transfer = { processorRef: `${newId('tx')}:3`, txId: newId('tx') };
      expect(await store().markCredited(oldest!.id, credit(7_000_000n, { transfer }))).toBe(true);
      expect(await store().findByRef('tron', transfer.processorRef)).toMatchObject({
        id: oldest!.id,
        txId: transfer.txId,
      });
      const next = await store().oldestAwaiting(accountId);
      expect(next?.id).not.toBe(oldest!.id);
      expect(await store().markCredited(next!.id, credit(1n, { transfer }))).toBe(false);
    });

    it('adds refunds up to what was credited, concurrent ones all counted, with the status that follows', async () => {
      const created = await store().create(deposit());
      const id = created.ok ? created.deposit.id : '';
      expect(await store().addRefunded(id, 1n, T0)).toBeNull();
      await store().markCredited(id, credit(10_000_000n));
      await Promise.all([1, 2, 3].map(() => store().addRefunded(id, 2_000_000n, T0 + 6)));
      expect(await store().get(id)).toMatchObject({ refundedMicros: 6_000_000n, status: 'partially_refunded' });
      expect(await store().addRefunded(id, 9_000_000n, T0 + 7)).toMatchObject({
        refundedMicros: 10_000_000n,
        status: 'refunded',
      });
    });

    it('hands out pending deposits with a processor ref to check, least recently looked at first', async () => {
      const at = T0 + 1_000_000;
      const made: string[] = [];
      for (const ref of ['a', 'b']) {
        const d = await store().create(deposit({ processorRef: `cs_${ref}_${newId('r')}`, createdAtMs: at }));
        if (d.ok) made.push(d.deposit.id);
      }
      await store().create(deposit({ createdAtMs: at })); // no checkout yet: nothing to ask about
      const due = (await store().pendingToCheck(at + 1, 100)).filter((d) => made.includes(d.id));
      expect(due.map((d) => d.id).sort()).toEqual([...made].sort());
      await store().touch(made[0]!, at + 10);
      const next = (await store().pendingToCheck(at + 5, 100)).filter((d) => made.includes(d.id));
      expect(next.map((d) => d.id)).toEqual([made[1]]);
    });

    it('lists an account newest first, paged', async () => {
      const accountId = newId('acc');
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const made = await store().create(deposit({ accountId, createdAtMs: T0 + i }));
        if (made.ok) ids.push(made.deposit.id);
      }
      expect((await store().list(accountId, { limit: 10, offset: 0 })).map((d) => d.id)).toEqual(ids.reverse());
      expect((await store().list(accountId, { limit: 1, offset: 1 })).map((d) => d.id)).toEqual([ids[1]]);
    });

    it('gives each account one address, a derivation index of its own even when asked concurrently', async () => {
      const accounts = Array.from({ length: 5 }, () => newId('acc'));
      const derive = (index: number) => `T-address-${name}-${index}`;
      const given = await Promise.all(
        accounts.flatMap((a) => [store().addressFor(a, derive), store().addressFor(a, derive)]),
      );
      for (let i = 0; i < given.length; i += 2) expect(given[i]).toEqual(given[i + 1]);
      expect(new Set(given.map((a) => a.index)).size).toBe(accounts.length);
      expect(await store().findAddress(given[0]!.address)).toEqual(given[0]);
      expect(await store().findAddress('T-nobody')).toBeNull();
    });

    it('scans every deposit in id order, a page at a time', async () => {
      const all: string[] = [];
      for (let afterId: string | null = null; ; ) {
        const page: { id: string }[] = await store().scan(afterId, 2);
        if (page.length === 0) break;
        all.push(...page.map((d) => d.id));
        afterId = page.at(-1)!.id;
      }
      expect(all).toEqual([...all].sort());
      expect(new Set(all).size).toBe(all.length);
      expect(all.length).toBeGreaterThan(5);
    });

    it('keeps the chain cursor', async () => {
      const chain = `tron-${newId('c')}`;
      expect(await store().cursor(chain)).toBeNull();
      await store().setCursor(chain, 100);
      await store().setCursor(chain, 101);
      expect(await store().cursor(chain)).toBe(101);
    });
  });
}

conformance('memory', async () => ({ store: new MemoryDepositStore(), cleanup: async () => {} }));

conformance('sqlite', async () => {
  const db = await sqliteMemory();
  return { store: new SqlDepositStore(db), cleanup: () => db.knex.destroy() };
});

conformance('postgres', async () => {
  const { db, drop } = await postgresSchema();
  return { store: new SqlDepositStore(db), cleanup: drop };
});
