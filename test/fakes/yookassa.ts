/**
 * A loopback fake of YooKassa, "the acquirer" of issue 27 item 6 (research/payments.md 6.3), for
 * src/adapters/payment-processor/yookassa.ts: its API v3 over HTTP (yookassa-api.ts says what it answers), state
 * the test drives (authorize, succeed, cancel, refund part; `patch` for odd objects), each change queuing the
 * notification YooKassa would send, and `forge` for notifications YooKassa never sent (a payment that does not
 * exist, a success the API does not show). `outbox.deliver` POSTs them to `outbox.webhookUrl`, once or repeatedly,
 * in order or reversed (yookassa-notifications.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type FailureStatus, FakeYooKassaApi } from './yookassa-api.js';
import { NotificationOutbox } from './yookassa-notifications.js';
import { kopecks, paidMethod, rubles, succeededPayment, type WireObject, yooKassaId } from './yookassa-wire.js';

const WEEK_MS = 7 * 86_400_000;

export class FakeYooKassa {
  readonly outbox = new NotificationOutbox();
  readonly forge = {
    /** `payment.succeeded` naming a payment that does not exist; its id. */
    unknownPayment: (): string => {
      const id = yooKassaId();
      const amount = { value: '100000.00', currency: 'RUB' };
      this.outbox.queue('payment.succeeded', { id, status: 'succeeded', paid: true, amount });
      return id;
    },
    /** `payment.succeeded` claiming `status: succeeded, paid: true` for a payment whatever the API shows. */
    succeeded: (paymentId: string): void =>
      this.outbox.queue('payment.succeeded', { ...this.payment(paymentId), status: 'succeeded', paid: true }),
    /** Any notification at all. */
    notification: (event: string, object: WireObject): void => this.outbox.queue(event, object),
  };

  private constructor(
    private readonly api: FakeYooKassaApi,
    private readonly server: Server,
    /** The adapter's `apiBase`. */
    readonly apiBase: string,
  ) {}

  static async start(shopId = '506751', secretKey = 'test_secret_key'): Promise<FakeYooKassa> {
    const api = new FakeYooKassaApi(shopId, secretKey);
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const answer = api.answer({
          method: req.method ?? '',
          path: req.url ?? '',
          authorization: req.headers.authorization,
          idempotenceKey: req.headers['idempotence-key'] as string | undefined,
          body: parsed(Buffer.concat(chunks).toString('utf8')),
        });
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return new FakeYooKassa(api, server, `http://127.0.0.1:${port}/v3`);
  }

  get shopId(): string {
    return this.api.shopId;
  }
  get secretKey(): string {
    return this.api.secretKey;
  }
  get payments(): ReadonlyMap<string, WireObject> {
    return this.api.payments;
  }
  get refunds(): ReadonlyMap<string, WireObject> {
    return this.api.refunds;
  }
  get requests(): FakeYooKassaApi['requests'] {
    return this.api.requests;
  }

  failNext(...statuses: FailureStatus[]): void {
    this.api.failNext(...statuses);
  }

  /** Every API request answers `status` until called with null, as an outage does. */
  failRequests(status: FailureStatus | null): void {
    this.api.failRequests(status);
  }

  /** Where new payments' `confirmation_url` sends the person, instead of YooKassa's page (the local payments demo). */
  setCheckoutPage(page: (paymentId: string) => string): void {
    this.api.checkoutPage = page;
  }

  /** Money held, not yet captured (a two-stage payment; ours capture at once, so this is brief). */
  authorize(paymentId: string): void {
    const payment = this.payment(paymentId);
    const expires_at = new Date(Date.now() + WEEK_MS).toISOString();
    const held = {
      ...payment,
      status: 'waiting_for_capture',
      paid: true,
      expires_at,
      payment_method: paidMethod(payment),
    };
    this.change(paymentId, 'payment.waiting_for_capture', held);
  }

  succeed(paymentId: string): void {
    this.change(paymentId, 'payment.succeeded', succeededPayment(this.payment(paymentId)));
  }

  /** `expired_on_confirmation` (never confirmed) by default; any of YooKassa's other reasons is a decline. */
  cancel(paymentId: string, reason = 'expired_on_confirmation'): void {
    const party = reason === 'expired_on_confirmation' ? 'yoo_money' : 'payment_network';
    const canceled = {
      ...this.payment(paymentId),
      status: 'canceled',
      paid: false,
      cancellation_details: { party, reason },
    };
    this.change(paymentId, 'payment.canceled', canceled);
  }

  /** Returns part (or all) of a succeeded payment; the refund's id. */
  refund(paymentId: string, amountMinor: bigint): string {
    const payment = this.payment(paymentId);
    if (payment.status !== 'succeeded') throw new Error(`fake yookassa: payment ${paymentId} is not succeeded`);
    const { value, currency } = payment.amount as { value: string; currency: string };
    const refunded = kopecks((payment.refunded_amount as { value: string }).value)! + amountMinor;
    if (amountMinor <= 0n || refunded > kopecks(value)!) throw new Error('fake yookassa: refund over the payment');
    const id = yooKassaId();
    const created_at = new Date().toISOString();
    const refund = {
      id,
      payment_id: paymentId,
      status: 'succeeded',
      created_at,
      amount: { value: rubles(amountMinor), currency },
    };
    this.api.refunds.set(id, refund);
    this.api.payments.set(paymentId, { ...payment, refunded_amount: { value: rubles(refunded), currency } });
    this.outbox.queue('refund.succeeded', refund);
    return id;
  }

  /** Overwrites fields of a payment or refund, with no notification (wire-format edge cases). */
  patch(kind: 'payment' | 'refund', id: string, fields: WireObject): void {
    const objects = kind === 'payment' ? this.api.payments : this.api.refunds;
    const object = objects.get(id);
    if (object === undefined) throw new Error(`fake yookassa: no ${kind} ${id}`);
    objects.set(id, { ...object, ...fields });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private payment(id: string): WireObject {
    const payment = this.api.payments.get(id);
    if (payment === undefined) throw new Error(`fake yookassa: no payment ${id}`);
    return payment;
  }

  private change(id: string, event: string, changed: WireObject): void {
    this.api.payments.set(id, changed);
    this.outbox.queue(event, changed);
  }
}

/** The body as JSON when it is JSON, else its text (the API then refuses it), else undefined when empty. */
function parsed(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
