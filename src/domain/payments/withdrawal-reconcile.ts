import type { HoldStatus } from '../../adapters/ledger/index.js';
import type { TronChain } from '../../adapters/tron-chain/index.js';
import type { WithdrawalRecord, WithdrawalStatus } from '../../adapters/withdrawal-store/index.js';
import { checkEvery } from './reconcile.js';
import { type WithdrawalBooks, withdrawalHoldId } from './withdrawals-context.js';

/** One withdrawal whose ledger hold or chain transaction does not match its state (docs/payments.md). */
export interface WithdrawalDifference {
  withdrawal_id: string;
  status: WithdrawalStatus;
  problem: 'hold_mismatch' | 'not_on_chain' | 'chain_unreachable';
  detail: string;
}

/** The hold status each state must have: the money is held until the chain's final word, then posted or given back. */
function expectedHold(w: WithdrawalRecord): readonly (HoldStatus | null)[] {
  if (w.status === 'completed') return ['posted'];
  if (w.status === 'rejected') return ['voided'];
  // A withdrawal whose hold could not be placed failed with none.
  if (w.status === 'failed') return w.signed === null ? ['voided', null] : ['voided'];
  if (w.status === 'requested') return ['pending', null];
  return ['pending'];
}

/**
 * Compares every withdrawal with the ledger and, when a node is configured, with the chain (issue 27 item 5): its
 * hold must be in the state its status implies, of its amount and fee; a completed one must be in a solidified
 * block with a SUCCESS receipt. Reads only.
 */
export function reconcileWithdrawals(
  books: WithdrawalBooks,
  chain: TronChain | null,
): Promise<{ checked: number; differences: WithdrawalDifference[] }> {
  return checkEvery(
    (afterId, limit) => books.withdrawals.scan(afterId, limit),
    (w) => check(books, chain, w),
  );
}

async function check(books: WithdrawalBooks, chain: TronChain | null, w: WithdrawalRecord) {
  const found = (problem: WithdrawalDifference['problem'], detail: string): WithdrawalDifference[] => [
    { withdrawal_id: w.id, status: w.status, problem, detail },
  ];
  const hold = await books.ledger.getHold(withdrawalHoldId(w.id));
  if (!expectedHold(w).includes(hold?.status ?? null))
    return found('hold_mismatch', `its hold is ${hold?.status ?? 'missing'}`);
  const owed = w.amountMicros + w.feeMicros;
  const held = hold === null ? owed : hold.status === 'posted' ? hold.postedMicros : hold.amountMicros;
  if (held !== owed) return found('hold_mismatch', `its hold is ${held} micro-USD, the withdrawal ${owed}`);
  if (w.status !== 'completed' || chain === null) return [];
  const state = await chain.transactionInfo(w.signed!.txid, { solid: true }).catch(() => undefined);
  if (state === undefined) return found('chain_unreachable', 'the TRON node did not answer');
  if (state.kind !== 'in_block' || state.status !== 'SUCCESS')
    return found('not_on_chain', `transaction ${w.signed!.txid} is not a solidified SUCCESS`);
  return [];
}
