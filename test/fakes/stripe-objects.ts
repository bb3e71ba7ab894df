/**
 * The JSON objects of the fake Stripe, shaped as Stripe's API reference shows them (API 2026-10-28.endive, the
 * version `stripe` 23.1.0 pins): checkout.session, payment_intent, charge, refund, dispute with its
 * balance_transactions, event, list and error. Only fields a client could rely on for our flows are filled; the
 * rest of a real object is left out rather than invented.
 */
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';

export const API_VERSION = Stripe.API_VERSION;

/** `cs_test_…`, `pi_…`: Stripe's prefixes with random base62-ish tails. */
export function stripeId(prefix: string): string {
  return `${prefix}_${randomBytes(18).toString('base64url').replace(/[-_]/g, 'x')}`;
}

const nowSec = () => Math.floor(Date.now() / 1000);

export interface FakeSession {
  id: string;
  object: 'checkout.session';
  status: 'open' | 'complete' | 'expired';
  payment_status: 'paid' | 'unpaid';
  payment_intent: string | null;
  amount_total: number;
  currency: string;
  metadata: Record<string, string>;
  expires_at: number;
  url: string | null;
  [field: string]: unknown;
}

export function sessionObject(fields: {
  amount: number;
  currency: string;
  metadata: Record<string, string>;
  clientReferenceId: string | null;
  successUrl: string;
  cancelUrl: string;
  allowedMethods: string[];
}): FakeSession {
  const id = stripeId('cs_test');
  return {
    id,
    object: 'checkout.session',
    allowed_payment_method_types: fields.allowedMethods,
    amount_subtotal: fields.amount,
    amount_total: fields.amount,
    cancel_url: fields.cancelUrl,
    client_reference_id: fields.clientReferenceId,
    created: nowSec(),
    currency: fields.currency,
    customer: null,
    expires_at: nowSec() + 24 * 3600,
    livemode: false,
    metadata: fields.metadata,
    mode: 'payment',
    payment_intent: null,
    payment_method_types: fields.allowedMethods,
    payment_status: 'unpaid',
    status: 'open',
    success_url: fields.successUrl,
    url: `https://checkout.stripe.com/c/pay/${id}`,
  };
}

export interface FakeIntent {
  id: string;
  object: 'payment_intent';
  amount: number;
  amount_received: number;
  currency: string;
  status: 'processing' | 'succeeded' | 'requires_payment_method';
  latest_charge: string | null;
  metadata: Record<string, string>;
  [field: string]: unknown;
}

export function intentObject(amount: number, currency: string, metadata: Record<string, string>): FakeIntent {
  return {
    id: stripeId('pi'),
    object: 'payment_intent',
    amount,
    amount_received: 0,
    created: nowSec(),
    currency,
    last_payment_error: null,
    latest_charge: null,
    livemode: false,
    metadata,
    status: 'processing',
  };
}

export interface FakeCharge {
  id: string;
  object: 'charge';
  amount: number;
  amount_refunded: number;
  currency: string;
  disputed: boolean;
  payment_intent: string;
  refunded: boolean;
  [field: string]: unknown;
}

export function chargeObject(intent: FakeIntent): FakeCharge {
  return {
    id: stripeId('ch'),
    object: 'charge',
    amount: intent.amount,
    amount_captured: intent.amount,
    amount_refunded: 0,
    balance_transaction: stripeId('txn'),
    captured: true,
    created: nowSec(),
    currency: intent.currency,
    disputed: false,
    livemode: false,
    metadata: intent.metadata,
    paid: true,
    payment_intent: intent.id,
    refunded: false,
    status: 'succeeded',
  };
}

export interface FakeRefund {
  id: string;
  object: 'refund';
  amount: number;
  charge: string;
  payment_intent: string;
  status: 'pending' | 'succeeded';
  [field: string]: unknown;
}

export function refundObject(charge: FakeCharge, amount: number, status: FakeRefund['status']): FakeRefund {
  return {
    id: stripeId('re'),
    object: 'refund',
    amount,
    balance_transaction: stripeId('txn'),
    charge: charge.id,
    created: nowSec(),
    currency: charge.currency,
    metadata: {},
    payment_intent: charge.payment_intent,
    reason: 'requested_by_customer',
    status,
  };
}

/** A card network's dispute fee as Stripe books it beside the disputed amount (not part of `amount`). */
export const DISPUTE_FEE = 1500;

export interface FakeDispute {
  id: string;
  object: 'dispute';
  amount: number;
  currency: string;
  status: 'needs_response' | 'won' | 'lost';
  balance_transactions: Record<string, unknown>[];
  [field: string]: unknown;
}

export function disputeObject(charge: FakeCharge, amount: number): FakeDispute {
  return {
    id: stripeId('dp'),
    object: 'dispute',
    amount,
    balance_transactions: [],
    charge: charge.id,
    created: nowSec(),
    currency: charge.currency,
    is_charge_refundable: false,
    livemode: false,
    metadata: {},
    payment_intent: charge.payment_intent,
    reason: 'fraudulent',
    status: 'needs_response',
  };
}

/** The money a dispute moves: −amount and the fee when funds are withdrawn, +amount and the fee back on a win. */
export function disputeTransaction(dispute: FakeDispute, sign: -1 | 1): Record<string, unknown> {
  const amount = sign * dispute.amount;
  const fee = sign * -DISPUTE_FEE;
  return {
    id: stripeId('txn'),
    object: 'balance_transaction',
    amount,
    available_on: nowSec(),
    created: nowSec(),
    currency: dispute.currency,
    description: sign < 0 ? 'Chargeback withdrawal' : 'Chargeback reversal',
    fee: -fee,
    net: amount + fee,
    reporting_category: sign < 0 ? 'dispute' : 'dispute_reversal',
    source: dispute.id,
    status: 'available',
    type: 'adjustment',
  };
}

export interface FakeEvent {
  id: string;
  object: 'event';
  type: string;
  data: { object: unknown };
  [field: string]: unknown;
}

/** A snapshot event: a deep copy, so later changes to the object do not rewrite what was sent. */
export function eventObject(type: string, object: unknown): FakeEvent {
  return {
    id: stripeId('evt'),
    object: 'event',
    api_version: API_VERSION,
    created: nowSec(),
    data: { object: structuredClone(object) },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
}

export function listObject(url: string, data: unknown[]): Record<string, unknown> {
  return { object: 'list', data, has_more: false, url };
}

export interface StripeErrorBody {
  status: number;
  body: { error: { type: string; code?: string; message: string; param?: string } };
}

export function missing(kind: string, id: string): StripeErrorBody {
  return {
    status: 404,
    body: {
      error: {
        type: 'invalid_request_error',
        code: 'resource_missing',
        message: `No such ${kind}: '${id}'`,
        param: 'id',
      },
    },
  };
}

export function invalid(message: string, code?: string, param?: string): StripeErrorBody {
  return {
    status: 400,
    body: { error: { type: 'invalid_request_error', message, ...(code && { code }), ...(param && { param }) } },
  };
}
