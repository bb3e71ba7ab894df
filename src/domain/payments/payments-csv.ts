import type { components } from '../../../generated/openapi.js';
import { csv } from '../../lib/csv.js';

type Deposit = components['schemas']['Deposit'];
type Withdrawal = components['schemas']['Withdrawal'];

const COLUMNS = [
  'id',
  'created_at',
  'type',
  'method',
  'status',
  'amount_usd',
  'amount_rub',
  'fee_usd',
  'credited_usd',
  'refunded_usd',
  'tx_id',
  'finished_at',
] as const;

/**
 * The payments export (issue 27 item 5): the account's deposits and withdrawals as the API shows them, newest
 * first, one line each, beside the usage export's spend.
 */
export function paymentsCsv(deposits: readonly Deposit[], withdrawals: readonly Withdrawal[]): string {
  const rows = [
    ...deposits.map((d) => ({
      at: d.created_at,
      row: [
        d.deposit_id,
        d.created_at,
        'deposit',
        d.method,
        d.status,
        d.amount_usd,
        d.amount_rub,
        null,
        d.credited_usd,
        d.refunded_usd,
        d.tx_id,
        d.credited_at,
      ],
    })),
    ...withdrawals.map((w) => ({
      at: w.created_at,
      row: [
        w.withdrawal_id,
        w.created_at,
        'withdrawal',
        'usdt_trc20',
        w.status,
        w.amount_usd,
        null,
        w.fee_usd,
        null,
        null,
        w.tx_id,
        w.finished_at,
      ],
    })),
  ];
  rows.sort((a, b) => b.at.localeCompare(a.at));
  return csv(
    COLUMNS,
    rows.map((r) => r.row),
  );
}
