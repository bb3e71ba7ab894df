import type { components } from '../../../generated/openapi.js';
import type { WithdrawalAddress, WithdrawalRecord } from '../../adapters/withdrawal-store/index.js';
import { microsToUsd } from '../../domain/billing/money.js';
import { isoOrNull } from '../../lib/iso-time.js';

/** A withdrawal as the account sees it: never its signed bytes. */
export function withdrawalView(w: WithdrawalRecord): components['schemas']['Withdrawal'] {
  return {
    withdrawal_id: w.id,
    status: w.status,
    address: w.address,
    amount_usd: microsToUsd(w.amountMicros),
    fee_usd: microsToUsd(w.feeMicros),
    tx_id: w.signed?.txid ?? null,
    failure_reason: w.failureReason,
    created_at: new Date(w.createdAtMs).toISOString(),
    finished_at: isoOrNull(w.finishedAtMs),
  };
}

export function withdrawalAddressView(a: WithdrawalAddress): components['schemas']['WithdrawalAddress'] {
  return {
    address_id: a.id,
    address: a.address,
    label: a.label,
    created_at: new Date(a.createdAtMs).toISOString(),
    usable_from: new Date(a.usableFromMs).toISOString(),
  };
}
