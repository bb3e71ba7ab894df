import type { ApiKeyStore } from '../../adapters/api-keys/index.js';
import type { DepositStore } from '../../adapters/deposit-store/index.js';
import type { Ledger } from '../../adapters/ledger/index.js';
import type { TronChain } from '../../adapters/tron-chain/index.js';
import type { WithdrawalStore } from '../../adapters/withdrawal-store/index.js';
import type { AuthContext } from '../accounts/auth-context.js';

/** The service's withdrawal rules (config-withdrawals.ts), in micro-USD and milliseconds. */
export interface WithdrawalPolicy {
  feeMicros: bigint;
  minMicros: bigint;
  maxMicros: bigint;
  dailyAccountMicros: bigint;
  dailyTotalMicros: bigint;
  /** Above it a withdrawal waits for an operator. */
  approvalMicros: bigint;
  coolingMs: number;
  earningsHoldMs: number;
  /** Chain time past a signed transaction's expiration after which "not in a solidified block" means never. */
  expiryMarginMs: number;
}

/** The chain side of withdrawals: on only with a node and the hot wallet's address (its key is the signer's). */
export interface WithdrawalRail {
  chain: TronChain;
  /** The USDT contract: never a destination. */
  contract: string;
  hotWallet: string;
}

/** What the withdrawal flows use (issue 27 item 4, DESIGN.md 11); built once by the composition root. */
export interface WithdrawalsContext {
  withdrawals: WithdrawalStore;
  ledger: Ledger;
  apiKeys: ApiKeyStore;
  /** The second factor and the account's mail. */
  auth: AuthContext;
  /** Our own deposit addresses: never a destination (a transfer between accounts is not a withdrawal). */
  deposits: DepositStore;
  /**
   * Σ of the provider's earnings posted up to now (rentals and volumes, SPEC 1.6), and the part of it posted before
   * `maturedBeforeMs`, from one read.
   */
  earnings(accountId: string, maturedBeforeMs: number): Promise<{ totalMicros: bigint; maturedMicros: bigint }>;
  /** null when withdrawals are off (TRON_NODE_URL or TRON_HOT_WALLET_ADDRESS missing). */
  rail: WithdrawalRail | null;
  policy: WithdrawalPolicy;
  now: () => number;
}

/** What the operator's commands need: the withdrawals and the ledger, no rail, no mail. */
export type WithdrawalBooks = Pick<WithdrawalsContext, 'withdrawals' | 'ledger' | 'now'>;

/** The ledger hold that carries a withdrawal's amount and fee from request to settlement. */
export const withdrawalHoldId = (withdrawalId: string): string => `withdrawal:${withdrawalId}`;
