import type { components } from '../../../generated/openapi.js';
import type { DepositRecord } from '../../adapters/deposit-store/index.js';
import { microsToUsd, scaledToNumber } from '../../domain/billing/money.js';
import { isoOrNull } from '../../lib/iso-time.js';

type Deposit = components['schemas']['Deposit'];

const money = (minor: bigint | null, places: number): number | null =>
  minor === null ? null : scaledToNumber(minor, places);

/** A deposit as the account sees it: amounts in its currency's units, never the processor's internals. */
export function depositView(d: DepositRecord): Deposit {
  return {
    deposit_id: d.id,
    method: d.method,
    status: d.status,
    amount_usd: d.currency === 'usd' ? money(d.amountMinor, 2) : d.currency === 'usdt' ? money(d.amountMinor, 6) : null,
    amount_rub: d.currency === 'rub' ? money(d.amountMinor, 2) : null,
    credited_usd: d.creditedMicros === null ? null : microsToUsd(d.creditedMicros),
    refunded_usd: microsToUsd(d.refundedMicros),
    checkout_url: d.checkoutUrl,
    address: d.address,
    tx_id: d.txId,
    created_at: new Date(d.createdAtMs).toISOString(),
    credited_at: isoOrNull(d.creditedAtMs),
  };
}
