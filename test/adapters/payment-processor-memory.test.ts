/**
 * The memory twin's own controls beyond the conformance suite, which the deposits domain's tests will drive: a
 * delayed method that settles or fails, disputes withdrawn and reinstated with their amounts, and the refusals a
 * real rail would give.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import {
  type CheckoutRequest,
  type ProcessorEvent,
  ProcessorRefused,
} from '../../src/adapters/payment-processor/index.js';
import { MemoryPaymentProcessor } from '../../src/adapters/payment-processor/memory.js';

const request: CheckoutRequest = {
  depositId: 'dep_memory',
  accountId: 'acc_owner',
  method: 'card',
  amountMinor: 3_000n,
  currency: 'usd',
  returnUrl: 'https://gateway.example.com/dashboard/deposits',
};

describe('MemoryPaymentProcessor: what tests drive', () => {
  let processor: MemoryPaymentProcessor;
  let ref: string;
  beforeEach(async () => {
    processor = new MemoryPaymentProcessor();
    ref = (await processor.createCheckout(request)).processorRef;
  });

  const events = async (): Promise<ProcessorEvent[]> => {
    const parsed = await Promise.all(processor.webhooks.map((w) => processor.parseWebhook(w.rawBody, w.headers)));
    return parsed.flat();
  };
  const status = async () => (await processor.retrieve(ref))?.status;

  it('a delayed method is pending until it settles (paid) or fails (failed), a webhook each time', async () => {
    processor.pay(ref, { delayed: true });
    expect(await status()).toBe('pending');
    expect((await processor.retrieve(ref))?.chargeRef).toEqual(expect.any(String));
    processor.settleDelayed(ref);
    expect(await status()).toBe('paid');
    const other = (await processor.createCheckout({ ...request, depositId: 'dep_other' })).processorRef;
    processor.pay(other, { delayed: true });
    processor.failDelayed(other);
    expect((await processor.retrieve(other))?.status).toBe('failed');
    expect((await events()).map((event) => event.kind === 'payment_changed' && event.processorRef)).toEqual([
      ref,
      ref,
      other,
      other,
    ]);
  });

  it('a dispute withdraws its amount, a win reinstates it, a loss sends nothing', async () => {
    processor.pay(ref);
    const chargeRef = (await processor.retrieve(ref))!.chargeRef!;
    const won = processor.openDispute(chargeRef, 1_200n);
    processor.winDispute(won);
    const lost = processor.openDispute(chargeRef);
    processor.loseDispute(lost);
    const disputes = (await events()).filter((event) => event.kind.startsWith('dispute'));
    expect(disputes).toEqual([
      { kind: 'dispute_funds_withdrawn', eventId: expect.any(String), chargeRef, disputeId: won, amountMinor: 1_200n },
      { kind: 'dispute_funds_reinstated', eventId: expect.any(String), chargeRef, disputeId: won, amountMinor: 1_200n },
      { kind: 'dispute_funds_withdrawn', eventId: expect.any(String), chargeRef, disputeId: lost, amountMinor: 3_000n },
    ]);
    expect(() => processor.winDispute(lost)).toThrow(/not open/);
  });

  it('refuses what a rail would: a refund beyond what is left, paying twice, a deposit id reused, a method not taken', async () => {
    processor.pay(ref);
    const chargeRef = (await processor.retrieve(ref))!.chargeRef!;
    processor.refund(chargeRef, 2_000n);
    expect(() => processor.refund(chargeRef, 1_001n)).toThrow(RangeError);
    expect(processor.refund(chargeRef)).toEqual(expect.any(String));
    expect(() => processor.pay(ref)).toThrow(/not pending/);
    await expect(processor.createCheckout({ ...request, amountMinor: 9_000n })).rejects.toBeInstanceOf(
      ProcessorRefused,
    );
    await expect(processor.createCheckout({ ...request, depositId: 'dep_sbp', method: 'sbp' })).rejects.toThrow(
      RangeError,
    );
  });

  it('stands in for another rail when told its name and methods', async () => {
    const acquirer = new MemoryPaymentProcessor({ name: 'yookassa', methods: ['card', 'sbp'] });
    expect(acquirer.name).toBe('yookassa');
    const { processorRef } = await acquirer.createCheckout({ ...request, method: 'sbp', currency: 'rub' });
    expect(await acquirer.retrieve(processorRef)).toMatchObject({ status: 'pending', currency: 'rub' });
  });

  it('a webhook signed by another memory processor is rejected', async () => {
    processor.pay(ref);
    const [webhook] = processor.webhooks;
    await expect(new MemoryPaymentProcessor().parseWebhook(webhook!.rawBody, webhook!.headers)).rejects.toThrow(
      /memory-signature/,
    );
  });
});
