/**
 * YooKassa's API v3 objects as its reference shows them (payment, refund, error), built for the fake acquirer
 * (test/fakes/yookassa.ts). Amounts are converted here on their own, not with the adapter's helpers, so the
 * adapter is checked against an independent reading of the wire format.
 */
import { randomBytes, randomUUID } from 'node:crypto';

export type WireObject = Record<string, unknown>;

/** `2c0c9f4a-000f-5000-8000-1b9d5c6d0e41`: YooKassa's ids are UUID-shaped with fixed middle groups. */
export function yooKassaId(): string {
  const hex = randomBytes(10).toString('hex');
  return `${hex.slice(0, 8)}-000f-5000-8000-${hex.slice(8, 20)}`;
}

/** kopecks → "1234.56". */
export function rubles(kopecks: bigint): string {
  const text = kopecks.toString().padStart(3, '0');
  return `${text.slice(0, -2)}.${text.slice(-2)}`;
}

/** "1234.56" (or "2.5", "2") → kopecks; null for anything else. */
export function kopecks(value: unknown): bigint | null {
  if (typeof value !== 'string' || !/^\d+(\.\d{1,2})?$/.test(value)) return null;
  const [whole, fraction = ''] = value.split('.');
  return BigInt(whole!) * 100n + BigInt(fraction.padEnd(2, '0'));
}

/** YooKassa's error body (`type: error`), with a fresh id as it gives each. */
export function errorBody(code: string, description: string, parameter?: string): WireObject {
  return { type: 'error', id: randomUUID(), code, description, ...(parameter === undefined ? {} : { parameter }) };
}

export interface NewPayment {
  shopId: string;
  amount: { value: string; currency: string };
  description: unknown;
  metadata: unknown;
  methodType: string;
  returnUrl: string;
}

/** A payment just created: pending until the person confirms it on YooKassa's page. */
export function pendingPayment(request: NewPayment): WireObject {
  const id = yooKassaId();
  return {
    id,
    status: 'pending',
    paid: false,
    amount: request.amount,
    confirmation: {
      type: 'redirect',
      return_url: request.returnUrl,
      confirmation_url: `https://yoomoney.ru/checkout/payments/v2/contract?orderId=${id}`,
    },
    created_at: new Date().toISOString(),
    ...(request.description === undefined ? {} : { description: request.description }),
    metadata: request.metadata ?? {},
    payment_method: { type: request.methodType, id, saved: false },
    recipient: { account_id: request.shopId, gateway_id: '2000001' },
    refundable: false,
    test: true,
  };
}

/** What a method's `payment_method` shows once paid. */
export function paidMethod(payment: WireObject): WireObject {
  const method = payment.payment_method as WireObject;
  if (method.type === 'sbp') return { ...method, sbp_operation_id: randomUUID(), title: 'SBP' };
  return {
    ...method,
    title: 'Bank card *4444',
    card: { first6: '555555', last4: '4444', expiry_month: '12', expiry_year: '2030', card_type: 'MasterCard' },
  };
}

/** A captured payment: the shop's income is the amount less a 3.5% commission (rounded down to a kopeck). */
export function succeededPayment(payment: WireObject): WireObject {
  const amount = payment.amount as { value: string; currency: string };
  const paid = kopecks(amount.value)!;
  return {
    ...payment,
    status: 'succeeded',
    paid: true,
    captured_at: new Date().toISOString(),
    income_amount: { value: rubles(paid - (paid * 35n) / 1000n), currency: amount.currency },
    refundable: true,
    refunded_amount: { value: '0.00', currency: amount.currency },
    payment_method: paidMethod(payment),
  };
}
