/** A Billing for unit tests of paid calls: it records each flow in order, against a balance it keeps in memory. */

import type { CallDetails, Charge, Reservation } from '../../src/domain/billing/billing.js';
import type { Principal } from '../../src/domain/keys/authenticator.js';
import type { PaidCallBilling } from '../../src/domain/paid-call/paid-call.js';
import { ApiError } from '../../src/errors/api-error.js';

/** An account as a request's principal; no discounts. */
export const TEST_PRINCIPAL: Principal = {
  accountId: 'acc_1',
  keyId: 'key_1',
  account: {
    id: 'acc_1',
    email: 'acc_1@example.com',
    createdAtMs: 0,
    discountPercent: 0,
    tierDiscounts: {},
    rateLimitPerMinute: null,
    rubBilling: false,
    lockedAtMs: null,
    lockReason: null,
    debtMicros: 0n,
  },
  keyRateLimitPerMinute: null,
  managesKeys: true,
  sessionId: null,
  keySpendLimit: null,
};

/** Billing that records each flow in order, with a balance that refuses what it cannot cover. */
export class RecordingBilling implements PaidCallBilling {
  readonly log: string[] = [];
  constructor(private readonly balanceMicros = 1_000_000n) {}

  async assertCanPay(_principal: Principal, floorMicros: bigint): Promise<void> {
    this.log.push(`floor ${floorMicros}`);
    if (floorMicros > this.balanceMicros) throw new ApiError('insufficient_balance');
  }

  async reserve(principal: Principal, requestId: string, amountMicros: bigint): Promise<Reservation> {
    this.log.push(`reserve ${amountMicros}`);
    if (amountMicros > this.balanceMicros) throw new ApiError('insufficient_balance');
    return {
      holdId: `hold:${requestId}`,
      requestId,
      principal,
      amountMicros,
      startedAtMs: 0,
      lease: null,
      keyHeld: false,
    };
  }

  async settle(reservation: Reservation, costMicros: bigint, details: CallDetails): Promise<Charge> {
    this.log.push(`settle ${costMicros} ${details.kind}`);
    const capped = costMicros < reservation.amountMicros ? costMicros : reservation.amountMicros;
    return { costMicros: capped, costRubMicro: null, fxRateRubMicro: null, usageId: 'use_1' };
  }

  async release(reservation: Reservation): Promise<void> {
    this.log.push(`release ${reservation.holdId}`);
  }

  keepAlive(): () => void {
    this.log.push('keep alive');
    return () => this.log.push('stop keeping alive');
  }
}
