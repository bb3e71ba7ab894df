/**
 * The payment-processor port's behaviour on the YooKassa rail, written against ProcessorDriver only
 * (test/fakes/yookassa-driver.ts: create / pay / fail / expire / refund / notify), so the same steps can run on
 * any rail's driver: a deposit is created, paid, announced and read back with the processor's amount; a retry
 * makes no second payment; redeliveries keep their event id; a refund names the charge retrieve reported.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProcessorDriver } from '../fakes/yookassa-driver.js';
import { startYooKassaDriver } from '../fakes/yookassa-driver.js';

describe('PaymentProcessor on the YooKassa rail', () => {
  let rail: ProcessorDriver;
  beforeEach(async () => {
    rail = await startYooKassaDriver();
  });
  afterEach(() => rail.close());

  it('create → pay → notify → retrieve: paid, with the amount and our ids from the processor', async () => {
    const checkout = await rail.create({ depositId: 'dep_conf1', accountId: 'acc_conf1', amountMinor: 77_777n });
    expect(checkout.checkoutUrl).toMatch(/^https:\/\//);
    expect(await rail.processor.retrieve(checkout.processorRef)).toMatchObject({ status: 'pending' });
    await rail.pay(checkout.processorRef);
    const [event] = await rail.notify();
    expect(event).toMatchObject({ kind: 'payment_changed', processorRef: checkout.processorRef });
    expect(await rail.processor.retrieve(checkout.processorRef)).toMatchObject({
      status: 'paid',
      amountMinor: 77_777n,
      currency: 'rub',
      depositId: 'dep_conf1',
      accountId: 'acc_conf1',
    });
  });

  it('a checkout created twice for one deposit is one payment', async () => {
    const first = await rail.create({ depositId: 'dep_conf2' });
    expect((await rail.create({ depositId: 'dep_conf2' })).processorRef).toBe(first.processorRef);
  });

  it('each method the rail lists can be asked for', async () => {
    const refs = new Set<string>();
    for (const method of rail.processor.methods) refs.add((await rail.create({ method })).processorRef);
    expect(refs.size).toBe(rail.processor.methods.length);
  });

  it('declined and abandoned payments end failed and expired, each announced', async () => {
    const declined = await rail.create();
    const abandoned = await rail.create();
    await rail.fail(declined.processorRef);
    await rail.expire(abandoned.processorRef);
    const events = await rail.notify();
    expect(events.map((e) => e.kind === 'payment_changed' && e.processorRef)).toEqual([
      declined.processorRef,
      abandoned.processorRef,
    ]);
    expect(await rail.processor.retrieve(declined.processorRef)).toMatchObject({ status: 'failed' });
    expect(await rail.processor.retrieve(abandoned.processorRef)).toMatchObject({ status: 'expired' });
  });

  it('a redelivery is the same event id; a new state is a new one', async () => {
    const { processorRef } = await rail.create();
    await rail.pay(processorRef);
    const [once, twice] = await rail.notify({ times: 2 });
    expect(twice!.eventId).toBe(once!.eventId);
    await rail.refund(processorRef, 100n);
    const [refunded] = await rail.notify({ times: 2 });
    expect(refunded!.eventId).not.toBe(once!.eventId);
  });

  it('a partial refund names the charge retrieve reported, with the refunded amount', async () => {
    const { processorRef } = await rail.create({ amountMinor: 50_000n });
    await rail.pay(processorRef);
    await rail.notify();
    const { chargeRef } = (await rail.processor.retrieve(processorRef))!;
    const refundId = await rail.refund(processorRef, 12_345n);
    expect(await rail.notify()).toEqual([
      { kind: 'refunded', eventId: expect.any(String), chargeRef, refundId, amountMinor: 12_345n },
    ]);
  });

  it('an unknown payment reads as null', async () => {
    expect(await rail.processor.retrieve('00000000-000f-5000-8000-000000000000')).toBeNull();
  });
});
