/**
 * Reading YooKassa's payment and refund objects (API v3 reference: "Payment object", "Refund object") as the port
 * needs them. Only objects our own GET returned are read here, never a notification's body (issue 27: the
 * notification is unsigned). An object that does not read is ProcessorUnavailable: nothing moves on it, and asking
 * again later is the only useful answer.
 */
import { isRecord } from '../../lib/is-record.js';
import { type Currency, type PaymentState, ProcessorUnavailable } from './index.js';
import { decimalToKopecks } from './yookassa-amounts.js';

export interface YooKassaRefund {
  id: string;
  /** The payment it returns money from. */
  paymentId: string;
  status: string;
  amountMinor: bigint;
}

const CURRENCIES: Readonly<Record<string, Currency>> = { RUB: 'rub', USD: 'usd' };

/** YooKassa's reason for a payment the person did not confirm in time (SBP: one hour; declined-payments page). */
const EXPIRED_REASON = 'expired_on_confirmation';

export function readPayment(object: Record<string, unknown>): PaymentState {
  const id = stringField(object, 'id', 'payment');
  const { amountMinor, currency } = readAmount(object.amount, `payment ${id}`);
  const metadata = isRecord(object.metadata) ? object.metadata : {};
  return {
    processorRef: id,
    status: statusOf(object, id),
    amountMinor,
    currency,
    depositId: typeof metadata.deposit_id === 'string' ? metadata.deposit_id : null,
    accountId: typeof metadata.account_id === 'string' ? metadata.account_id : null,
    // Refunds name the payment itself (`refund.payment_id`): the payment is the charge.
    chargeRef: id,
  };
}

export function readRefund(object: Record<string, unknown>): YooKassaRefund {
  const id = stringField(object, 'id', 'refund');
  return {
    id,
    paymentId: stringField(object, 'payment_id', `refund ${id}`),
    status: stringField(object, 'status', `refund ${id}`),
    amountMinor: readAmount(object.amount, `refund ${id}`).amountMinor,
  };
}

/**
 * pending and waiting_for_capture may still become paid (capture is automatic, so the second is brief);
 * succeeded is paid only with `paid: true`, which YooKassa always sets on it: without it nothing is credited;
 * canceled is final, `expired` when the person never confirmed, `failed` for every other reason.
 */
function statusOf(object: Record<string, unknown>, id: string): PaymentState['status'] {
  switch (object.status) {
    case 'pending':
    case 'waiting_for_capture':
      return 'pending';
    case 'succeeded':
      return object.paid === true ? 'paid' : 'pending';
    case 'canceled': {
      const details = isRecord(object.cancellation_details) ? object.cancellation_details : {};
      return details.reason === EXPIRED_REASON ? 'expired' : 'failed';
    }
    default:
      throw new ProcessorUnavailable(`yookassa payment ${id} has an unknown status ${JSON.stringify(object.status)}`);
  }
}

function readAmount(amount: unknown, what: string): { amountMinor: bigint; currency: Currency } {
  const value = isRecord(amount) ? decimalToKopecks(amount.value) : null;
  const currency = isRecord(amount) && typeof amount.currency === 'string' ? CURRENCIES[amount.currency] : undefined;
  if (value === null || currency === undefined)
    throw new ProcessorUnavailable(`yookassa ${what} has an unreadable amount ${JSON.stringify(amount)}`);
  return { amountMinor: value, currency };
}

function stringField(object: Record<string, unknown>, field: string, what: string): string {
  const value = object[field];
  if (typeof value !== 'string' || value === '') throw new ProcessorUnavailable(`yookassa ${what} has no ${field}`);
  return value;
}
