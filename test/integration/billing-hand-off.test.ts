/**
 * A busy account's charge is answered once the ledger has it in hand (src/adapters/ledger/README.md "Handed off";
 * Billing.settle): a capture from a lease sure to stay pending, in US dollars. The ledger here is the real one seen
 * through a gate that hands each capture off at once and holds back its commit, as a database across a network would
 * be mid-commit; on SQLite and PostgreSQL.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CaptureInput, Ledger } from '../../src/adapters/ledger/index.js';
import type { Billing, Reservation } from '../../src/domain/billing/billing.js';
import type { Principal } from '../../src/domain/keys/authenticator.js';
import { BILLING_BACKENDS, type BillingWorld, LEASES, openBillingWorld, reserveUntilLeased } from '../setup/billing.js';

const CALL = { model: 'm', kind: 'chat' as const, endpoint: '/x' };
const turns = async (n = 5) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe.each(BILLING_BACKENDS)('a charge handed off, on $name', (backend) => {
  let w: BillingWorld;
  let billing: Billing;
  let gate: { promise: Promise<void>; open: () => void } | null;

  beforeEach(async () => {
    w = await openBillingWorld(backend, Date.parse('2026-11-21T10:00:00Z'));
    gate = null;
    const capture = async (input: CaptureInput) => {
      input.onHandedOff?.();
      await gate?.promise;
      return w.ledger.capture(input);
    };
    const gated = new Proxy(w.ledger, {
      get: (ledger, key) => {
        if (key === 'capture') return capture;
        const value: unknown = Reflect.get(ledger, key);
        return typeof value === 'function' ? value.bind(ledger) : value;
      },
    }) as Ledger;
    billing = w.billing(600_000, gated);
  });
  afterEach(() => w.close());

  const closeGate = () => {
    let open!: () => void;
    const promise = new Promise<void>((resolve) => (open = resolve));
    gate = { promise, open };
    return gate;
  };

  const leased = (p: Principal): Promise<Reservation> => reserveUntilLeased(billing, w.ledger, p, 1_000n);

  it('answers a leased US-dollar charge before its commit; reads of the account still wait for the commit', async () => {
    const p = await w.principal(10);
    const r = await leased(p);
    const { open } = closeGate();
    const charge = await billing.settle(r, 700n, CALL);
    expect(charge).toMatchObject({ costMicros: 700n, costRubMicro: null });
    let read = false;
    const reading = billing.read(p.accountId, () => w.ledger.getTransfer(`charge:${r.requestId}`));
    void reading.then(() => (read = true));
    await turns();
    expect(read).toBe(false);
    open();
    expect(await reading).toMatchObject({ kind: 'capture', postedMicros: 700n });
  });

  it('caps the charge answered early at its reservation, as the commit does', async () => {
    const p = await w.principal(10);
    const r = await leased(p);
    closeGate().open();
    expect((await billing.settle(r, 5_000n, CALL)).costMicros).toBe(1_000n);
    await billing.drain();
    expect(await w.ledger.getTransfer(`charge:${r.requestId}`)).toMatchObject({ postedMicros: 1_000n });
  });

  it('waits for the commit of an account billed in rubles, and of a lease near its end', async () => {
    const rub = await w.principal(0, [{ usd: 10, fxRate: 90 }], true);
    const usd = await w.principal(10);
    const [r1, r2] = [await leased(rub), await leased(usd)];
    w.clock.now += (LEASES.ttlMs * 3) / 4 + 1; // r2's lease now has less than a quarter of its life left
    const { open } = closeGate();
    const answered: string[] = [];
    const settles = [
      billing.settle(r1, 700n, CALL).then((c) => (answered.push('rub'), c)),
      billing.settle(r2, 700n, CALL).then((c) => (answered.push('ending lease'), c)),
    ];
    await turns();
    expect(answered).toEqual([]);
    open();
    const [rubCharge] = await Promise.all(settles);
    expect(rubCharge?.costRubMicro).toBe(63_000n);
  });
});
