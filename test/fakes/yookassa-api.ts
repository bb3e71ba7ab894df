/**
 * The fake acquirer's API v3 answers (test/fakes/yookassa.ts serves them over HTTP), as YooKassa's reference
 * shows them:
 *
 *   POST /v3/payments          {amount: {value, currency}, capture, confirmation: {type: redirect, return_url},
 *                               payment_method_data: {type}, description?, metadata?}   → 200 payment (pending)
 *   GET  /v3/payments/{id}     → 200 payment | 404 not_found
 *   GET  /v3/refunds/{id}      → 200 refund  | 404 not_found
 *
 * HTTP Basic auth with the shop id and secret key (401 invalid_credentials otherwise). A POST needs an
 * `Idempotence-Key`: the same key with the same body answers the first answer again (the same payment); the same
 * key with another body is 400 invalid_request "Idempotence key duplicated". `failNext` makes the next requests
 * answer a given status (500, 502, 429, or 202 `processing`) before anything else is looked at; `failRequests`
 * makes every request answer one until cleared (an outage).
 */
import { isDeepStrictEqual } from 'node:util';
import { errorBody, kopecks, type NewPayment, pendingPayment, type WireObject } from './yookassa-wire.js';

export interface Answer {
  status: number;
  body: WireObject;
}

export interface ApiRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  idempotenceKey: string | undefined;
  body: unknown;
}

export type FailureStatus = 500 | 502 | 429 | 202;

const notFound = (what: string): Answer => ({
  status: 404,
  body: errorBody('not_found', `Incorrect ${what}_id. ${what} doesn't exist or access denied.`, `${what}_id`),
});

const invalid = (description: string, parameter: string): Answer => ({
  status: 400,
  body: errorBody('invalid_request', description, parameter),
});

function failure(status: FailureStatus): Answer {
  if (status === 202)
    return { status, body: { type: 'processing', description: 'Request accepted', retry_after: 1800 } };
  return { status, body: errorBody(status === 429 ? 'too_many_requests' : 'internal_server_error', 'Try again later') };
}

/** The request's fields as YooKassa checks them; an Answer when one is wrong. */
function newPaymentOf(body: unknown, shopId: string): NewPayment | Answer {
  if (typeof body !== 'object' || body === null) return invalid('Request body is not a JSON object', 'body');
  const request = body as WireObject;
  const amount = request.amount as { value?: unknown; currency?: unknown } | undefined;
  const value = kopecks(amount?.value);
  if (value === null || value <= 0n) return invalid('Invalid amount value', 'amount.value');
  if (amount?.currency !== 'RUB') return invalid('Invalid currency', 'amount.currency');
  const confirmation = request.confirmation as { type?: unknown; return_url?: unknown } | undefined;
  if (confirmation?.type !== 'redirect' || typeof confirmation.return_url !== 'string')
    return invalid('Redirect confirmation needs return_url', 'confirmation');
  const method = (request.payment_method_data as { type?: unknown } | undefined)?.type;
  if (method !== 'bank_card' && method !== 'sbp') return invalid('Unsupported payment method', 'payment_method_data');
  return {
    shopId,
    amount: { value: amount.value as string, currency: 'RUB' },
    description: request.description,
    metadata: request.metadata,
    methodType: method,
    returnUrl: confirmation.return_url,
  };
}

export class FakeYooKassaApi {
  readonly payments = new Map<string, WireObject>();
  readonly refunds = new Map<string, WireObject>();
  /** Every request that reached the fake, as received. */
  readonly requests: ApiRequest[] = [];
  private readonly failures: FailureStatus[] = [];
  private failing: FailureStatus | null = null;
  /** Where a new payment's `confirmation_url` sends the person; null: YooKassa's own page. */
  checkoutPage: ((paymentId: string) => string) | null = null;
  private readonly byKey = new Map<string, { body: unknown; answer: Answer }>();
  private readonly authorization: string;

  constructor(
    readonly shopId: string,
    readonly secretKey: string,
  ) {
    this.authorization = `Basic ${Buffer.from(`${shopId}:${secretKey}`).toString('base64')}`;
  }

  failNext(...statuses: FailureStatus[]): void {
    this.failures.push(...statuses);
  }

  /** Every request answers `status` until called with null. */
  failRequests(status: FailureStatus | null): void {
    this.failing = status;
  }

  answer(request: ApiRequest): Answer {
    this.requests.push(request);
    const failed = this.failures.shift() ?? this.failing ?? undefined;
    if (failed !== undefined) return failure(failed);
    if (request.authorization !== this.authorization)
      return { status: 401, body: errorBody('invalid_credentials', 'Login or password is incorrect', 'Authorization') };
    if (request.method === 'POST' && request.path === '/v3/payments')
      return this.createPayment(request.idempotenceKey, request.body);
    const found = /^\/v3\/(payments|refunds)\/([^/?]+)$/.exec(request.path);
    if (request.method !== 'GET' || found === null) return notFound('resource');
    const isPayment = found[1] === 'payments';
    const object = (isPayment ? this.payments : this.refunds).get(decodeURIComponent(found[2]!));
    return object === undefined ? notFound(isPayment ? 'payment' : 'refund') : { status: 200, body: object };
  }

  private createPayment(key: string | undefined, body: unknown): Answer {
    if (key === undefined || key === '') return invalid('Idempotence-Key header is missing', 'Idempotence-Key');
    const earlier = this.byKey.get(key);
    if (earlier !== undefined)
      return isDeepStrictEqual(earlier.body, body)
        ? earlier.answer
        : invalid('Idempotence key duplicated', 'Idempotence-Key');
    const request = newPaymentOf(body, this.shopId);
    if ('status' in request) return request;
    const payment = pendingPayment(request);
    if (this.checkoutPage !== null)
      (payment.confirmation as WireObject).confirmation_url = this.checkoutPage(payment.id as string);
    this.payments.set(payment.id as string, payment);
    const answer = { status: 200, body: structuredClone(payment) };
    this.byKey.set(key, { body, answer });
    return answer;
  }
}
