/**
 * The operator's payment commands (issue 27 items 4 and 5, docs/payments.md): `payments reconcile` compares every
 * deposit and withdrawal with the ledger and with its rail, as configured for the server, and prints the
 * differences; `payments withdrawals …` lists withdrawals and approves or rejects those waiting for review.
 */
import type { WithdrawalRecord, WithdrawalStatus } from '../adapters/withdrawal-store/index.js';
import { microsToUsd } from '../domain/billing/money.js';
import { reconcileDeposits } from '../domain/payments/reconcile.js';
import { reconcileWithdrawals } from '../domain/payments/withdrawal-reconcile.js';
import { approveWithdrawal, rejectWithdrawal } from '../domain/payments/withdrawal-review.js';
import { type Command, required, UsageError } from './command.js';

const STATUSES: readonly WithdrawalStatus[] = [
  'requested',
  'pending_review',
  'approved',
  'signed',
  'broadcast',
  'completed',
  'failed',
  'rejected',
];

const line = (w: WithdrawalRecord) => ({
  withdrawal_id: w.id,
  account_id: w.accountId,
  status: w.status,
  address: w.address,
  amount_usd: microsToUsd(w.amountMicros),
  fee_usd: microsToUsd(w.feeMicros),
  approved_by: w.approvedBy,
  tx_id: w.signed?.txid ?? null,
  failure_reason: w.failureReason,
  created_at: new Date(w.createdAtMs).toISOString(),
});

function outcome(w: WithdrawalRecord | null, id: string, step: string) {
  if (w === null)
    throw new UsageError(`withdrawal ${id} is not waiting for review (or does not exist): nothing to ${step}`);
  return line(w);
}

export const paymentCommands: Record<string, Command> = {
  'payments reconcile': {
    usage: 'payments reconcile',
    options: {},
    prepare() {
      return async ({ payments, withdrawals }) => ({
        deposits: await reconcileDeposits(payments),
        withdrawals: await reconcileWithdrawals(withdrawals, payments.usdt?.chain ?? null),
      });
    },
  },
  'payments withdrawals list': {
    usage: `payments withdrawals list [--status ${STATUSES.join('|')}]`,
    options: { status: { type: 'string', default: 'pending_review' } },
    prepare(values) {
      const status = values.status as WithdrawalStatus;
      if (!STATUSES.includes(status)) throw new UsageError(`--status must be one of ${STATUSES.join(', ')}`);
      return async ({ withdrawals }) => ({
        withdrawals: (await withdrawals.withdrawals.inStatus([status], 500)).map(line),
      });
    },
  },
  'payments withdrawals approve': {
    usage: 'payments withdrawals approve --id WITHDRAWAL_ID --by OPERATOR',
    options: { id: { type: 'string' }, by: { type: 'string' } },
    prepare(values) {
      const id = required(values, 'id');
      const by = required(values, 'by');
      return async ({ withdrawals }) => outcome(await approveWithdrawal(withdrawals, id, by), id, 'approve');
    },
  },
  'payments withdrawals reject': {
    usage: 'payments withdrawals reject --id WITHDRAWAL_ID --reason TEXT',
    options: { id: { type: 'string' }, reason: { type: 'string' } },
    prepare(values) {
      const id = required(values, 'id');
      const reason = required(values, 'reason');
      return async ({ withdrawals }) => outcome(await rejectWithdrawal(withdrawals, id, reason), id, 'reject');
    },
  },
};
