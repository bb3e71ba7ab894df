import { runReservedChain } from '../billing/billed-chain.js';
import type { Billing, CallDetails, Charge, Reservation } from '../billing/billing.js';
import type { Micros } from '../billing/money.js';
import type { Principal } from '../keys/authenticator.js';
import type { Route } from '../routing/route-table.js';
import type { ChainHooks, ChainResult } from '../routing/run-chain.js';

/** The billing flows a paid call uses (Billing; narrowed so the template can be read and tested alone). */
export type PaidCallBilling = Pick<Billing, 'assertCanPay' | 'reserve' | 'settle' | 'release' | 'keepAlive'>;

/** Who pays for a call, under which request id (the hold's idempotency key, DESIGN.md 3 "Charge once"). */
export interface PaidCallTerms {
  principal: Principal;
  requestId: string;
  /** The hold rule (hold-rules.ts): the worst-case cost given the tokens counted; `holdFor(0)` is the floor. */
  holdFor: (countedTokens: number) => Micros;
}

/** What the checks before the hold found: at least the tokens the hold covers, and whatever else the call needs. */
export interface Counted {
  tokens: number;
}

/** Counts and checks a call's input; `floorCheck` runs (once) before anything is counted (issue 23). */
export type CountStep<C extends Counted> = (floorCheck: () => Promise<void>) => Promise<C>;

/**
 * The one shape of every paid model call (DESIGN.md 3 "Pre-flight"; SPEC 4.1.3, 4.2): count the input once the
 * account is shown able to pay the floor, hold the worst case, run the route chain (a chain that fails releases
 * the hold, so a failed request costs nothing), then settle to the actual cost. `settle` resolves once the charge
 * is durable (Billing.settle), so an answer that waits for it never shows money that could still be lost.
 */
export class PaidCall {
  private constructor(
    private readonly billing: PaidCallBilling,
    readonly reservation: Reservation,
  ) {}

  /** Count → hold. Throws 402 insufficient_balance (floor or hold) or 503 before anything is held. */
  static async hold<C extends Counted>(
    billing: PaidCallBilling,
    terms: PaidCallTerms,
    count: CountStep<C>,
  ): Promise<{ call: PaidCall; counted: C }> {
    let floorChecked: Promise<void> | undefined; // once per request, whichever count needs it first
    const floorCheck = () => (floorChecked ??= billing.assertCanPay(terms.principal, terms.holdFor(0)));
    const counted = await count(floorCheck);
    const reservation = await billing.reserve(terms.principal, terms.requestId, terms.holdFor(counted.tokens));
    return { call: new PaidCall(billing, reservation), counted };
  }

  /** The route chain under the hold (SPEC 4.2 failover); every route failing releases it (SPEC 4.1.3, 4.6). */
  runChain<T>(
    chain: readonly Route[],
    attempt: (route: Route) => Promise<T>,
    hooks: ChainHooks,
  ): Promise<ChainResult<T>> {
    return runReservedChain(this.billing, this.reservation, chain, attempt, hooks);
  }

  /** The actual cost, capped at the hold, with its usage line; resolves once durable, never throws. */
  settle(costMicros: Micros, details: CallDetails): Promise<Charge> {
    return this.billing.settle(this.reservation, costMicros, details);
  }

  /** A failed request costs nothing (SPEC 4.6, 3.4). */
  release(): Promise<void> {
    return this.billing.release(this.reservation);
  }

  /** Keeps the hold alive while work that may outlast its TTL runs (a stream); call the result when it ends. */
  keepAlive(): () => void {
    return this.billing.keepAlive(this.reservation);
  }
}

/** What a call cost and the usage line it is recorded with (plus anything the answer shows of it). */
export interface Bill {
  costMicros: Micros;
  details: CallDetails;
}

/** A call answered in one piece: its count also finds the route chain (after the checks a client fixes first). */
export interface OneShotCall<C extends Counted, T, B extends Bill> {
  count: CountStep<C & { chain: readonly Route[] }>;
  attempt: (route: Route, counted: C) => Promise<T>;
  hooks: ChainHooks;
  bill: (value: T, route: Route, counted: C) => B;
}

/** The whole template at once: count → hold → chain → settle (embeddings, rerank). */
export async function runPaidCall<C extends Counted, T, B extends Bill>(
  billing: PaidCallBilling,
  terms: PaidCallTerms,
  steps: OneShotCall<C, T, B>,
): Promise<{ value: T; bill: B; charge: Charge }> {
  const { call, counted } = await PaidCall.hold(billing, terms, steps.count);
  const { value, route } = await call.runChain(counted.chain, (next) => steps.attempt(next, counted), steps.hooks);
  const bill = steps.bill(value, route, counted);
  const charge = await call.settle(bill.costMicros, bill.details);
  return { value, bill, charge };
}
