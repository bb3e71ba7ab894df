/**
 * A stateful fake of the Stripe API on loopback (issue 27 item 6, research/payments.md 6.3), for the Stripe
 * adapter driven through the official client (`host`/`port`/`protocol` aimed here). It speaks Stripe's wire format
 * for what the adapter and the deposits flow use:
 *
 *   POST /v1/checkout/sessions        form-encoded as the client sends it; Idempotency-Key replays the first answer,
 *                                     a reuse with another body is 400 idempotency_error
 *   GET  /v1/checkout/sessions/:id    `expand[]=payment_intent` honoured; 404 resource_missing when unknown or hidden
 *   POST /v1/refunds                  `payment_intent` or `charge`, optional `amount`
 *   GET  /v1/refunds?charge=ch_…      the charge's refunds, newest first
 *   GET  /v1/disputes/:id             with its balance_transactions; 404 when unknown or hidden
 *
 * A session's `url` is Stripe's hosted page unless `setCheckoutPage` names another (the local payments demo serves
 * its own pay page, test/fakes/payments-demo-pages.ts).
 *
 * A wrong key is 401; `failRequests(status)` answers every request with that status until cleared. The test drives
 * what people and banks do (pay, pay asynchronously, fail, expire, refund, dispute, win, lose); each change sends
 * its events, signed, to `webhooks.url` (see stripe-deliveries.ts for holding, reordering and redelivery).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookDeliveries } from './stripe-deliveries.js';
import { decodeForm, type FormValue, formList, formString } from './stripe-form.js';
import { API_VERSION, type FakeEvent, listObject, missing, type StripeErrorBody, stripeId } from './stripe-objects.js';
import { FakeStripeState } from './stripe-state.js';

export interface RecordedStripeRequest {
  method: string;
  path: string;
  /** The decoded form: the body of a POST, the query of a GET. */
  params: Record<string, FormValue>;
  headers: Record<string, string | string[] | undefined>;
}

interface Answer {
  status: number;
  body: unknown;
}

export class FakeStripe {
  readonly secretKey = `sk_test_${randomBytes(12).toString('hex')}`;
  readonly state = new FakeStripeState();
  readonly webhooks = new WebhookDeliveries(`whsec_${randomBytes(16).toString('hex')}`);
  readonly requests: RecordedStripeRequest[] = [];
  readonly #server: Server;
  readonly #hidden = new Set<string>();
  readonly #idempotent = new Map<string, { body: string; answer: Answer }>();
  #failStatus: number | null = null;
  #failuresLeft = 0;
  #checkoutPage: ((sessionId: string) => string) | null = null;

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(): Promise<FakeStripe> {
    const server = createServer();
    const fake = new FakeStripe(server);
    server.on('request', (req, res) => void fake.#handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get apiBaseUrl(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  pay = (sessionId: string) => this.webhooks.emit(this.state.pay(sessionId));
  payAsync = (sessionId: string) => this.webhooks.emit(this.state.payAsync(sessionId));
  asyncSucceeds = (sessionId: string) => this.webhooks.emit(this.state.asyncSucceeds(sessionId));
  asyncFails = (sessionId: string) => this.webhooks.emit(this.state.asyncFails(sessionId));
  expire = (sessionId: string) => this.webhooks.emit(this.state.expire(sessionId));
  settleRefund = (refundId: string) => this.webhooks.emit(this.state.settleRefund(refundId));
  winDispute = (disputeId: string) => this.webhooks.emit(this.state.winDispute(disputeId));
  loseDispute = (disputeId: string) => this.webhooks.emit(this.state.loseDispute(disputeId));

  /** A refund made in the Dashboard; returns the refund id. */
  async refund(paymentIntentId: string, amount?: number, options: { pending?: boolean } = {}): Promise<string> {
    const made = this.state.refund(paymentIntentId, amount, options.pending ? 'pending' : 'succeeded');
    if ('status' in made) throw new Error(made.body.error.message);
    await this.webhooks.emit(made.events);
    return made.refund.id;
  }

  /** Returns the dispute id. */
  async openDispute(paymentIntentId: string, amount?: number): Promise<string> {
    const { dispute, events } = this.state.openDispute(paymentIntentId, amount);
    await this.webhooks.emit(events);
    return dispute.id;
  }

  /** Until revealed, a session or dispute reads as missing (an event can come before the API serves its object). */
  hideFromReads(id: string): void {
    this.#hidden.add(id);
  }

  revealToReads(id: string): void {
    this.#hidden.delete(id);
  }

  /** The next `count` requests (default: all, until called with null) answer `status`, as an outage does. */
  failRequests(status: number | null, count = Number.POSITIVE_INFINITY): void {
    this.#failStatus = status;
    this.#failuresLeft = count;
  }

  /** Where new sessions' `url` sends the person, instead of checkout.stripe.com. */
  setCheckoutPage(page: (sessionId: string) => string): void {
    this.#checkoutPage = page;
  }

  /** The last event of a type, to find what a change sent. */
  lastEvent(type: string): FakeEvent {
    const event = this.webhooks.events.filter((candidate) => candidate.type === type).at(-1);
    if (event === undefined) throw new Error(`no ${type} event was emitted`);
    return event;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.closeAllConnections();
      this.#server.close(() => resolve());
    });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake-stripe');
    const method = req.method ?? 'GET';
    const params = decodeForm(method === 'GET' ? url.search.slice(1) : body);
    this.requests.push({ method, path: url.pathname, params, headers: req.headers });
    const key = req.headers['idempotency-key'];
    const replay = method === 'POST' && typeof key === 'string' ? this.#idempotent.get(key) : undefined;
    if (replay !== undefined) {
      const answer = replay.body === body ? replay.answer : idempotencyMismatch(key as string);
      return send(res, answer, replay.body === body);
    }
    const answer = await this.#answer(req, method, url.pathname, params);
    if (method === 'POST' && typeof key === 'string' && answer.status < 500)
      this.#idempotent.set(key, { body, answer });
    send(res, answer, false);
  }

  async #answer(
    req: IncomingMessage,
    method: string,
    path: string,
    params: Record<string, FormValue>,
  ): Promise<Answer> {
    if (this.#failStatus !== null && this.#failuresLeft > 0) {
      this.#failuresLeft -= 1;
      return {
        status: this.#failStatus,
        body: { error: { type: 'api_error', message: 'The fake is down on purpose.' } },
      };
    }
    if (req.headers.authorization !== `Bearer ${this.secretKey}`) {
      return { status: 401, body: { error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' } } };
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') return ok(this.#createSession(params));
    if (method === 'POST' && path === '/v1/refunds') return ok(await this.#createRefund(params));
    if (method === 'GET' && path === '/v1/refunds') return ok(this.#refundsOf(formString(params, 'charge')));
    const [, resource, encodedId] = /^\/v1\/(checkout\/sessions|disputes)\/([^/]+)$/.exec(path) ?? [];
    const id = decodeURIComponent(encodedId ?? '');
    if (method === 'GET' && resource === 'checkout/sessions') return ok(this.#session(id, formList(params, 'expand')));
    if (method === 'GET' && resource === 'disputes') {
      return ok((!this.#hidden.has(id) && this.state.disputes.get(id)) || missing('dispute', id));
    }
    const message = `Unrecognized request URL (${method}: ${path}).`;
    return { status: 404, body: { error: { type: 'invalid_request_error', message } } };
  }

  #createSession(params: Record<string, FormValue>): unknown {
    const made = this.state.createSession(params);
    if (this.#checkoutPage !== null && 'id' in made) made.url = this.#checkoutPage(made.id);
    return made;
  }

  #session(id: string, expand: string[]): unknown {
    const session = this.#hidden.has(id) ? undefined : this.state.sessions.get(id)?.session;
    if (session === undefined) return missing('checkout.session', id);
    const view = structuredClone(session);
    if (expand.includes('payment_intent') && session.payment_intent !== null) {
      view.payment_intent = this.state.intents.get(session.payment_intent) as never;
    }
    return view;
  }

  async #createRefund(params: Record<string, FormValue>): Promise<unknown> {
    const chargeId = formString(params, 'charge');
    const intentId =
      formString(params, 'payment_intent') ?? (chargeId && this.state.charges.get(chargeId)?.payment_intent);
    const amount = formString(params, 'amount');
    const made = this.state.refund(intentId ?? '', amount === undefined ? undefined : Number(amount));
    if ('status' in made) return made;
    await this.webhooks.emit(made.events);
    return made.refund;
  }

  #refundsOf(chargeId: string | undefined): unknown {
    const refunds = [...this.state.refunds.values()].filter(
      (refund) => chargeId === undefined || refund.charge === chargeId,
    );
    return listObject('/v1/refunds', refunds.reverse());
  }
}

function ok(result: unknown): Answer {
  const error = result as Partial<StripeErrorBody>;
  if (typeof error.status === 'number' && error.body !== undefined) return { status: error.status, body: error.body };
  return { status: 200, body: result };
}

function idempotencyMismatch(key: string): Answer {
  const message = `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`;
  return { status: 400, body: { error: { type: 'idempotency_error', message } } };
}

function send(res: ServerResponse, answer: Answer, replayed: boolean): void {
  res.writeHead(answer.status, {
    'content-type': 'application/json',
    'request-id': stripeId('req'),
    'stripe-version': API_VERSION,
    ...(replayed && { 'idempotent-replayed': 'true' }),
  });
  res.end(JSON.stringify(answer.body, null, 2));
}
