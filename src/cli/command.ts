/**
 * What every admin CLI command is made of (admin.ts runs them): its usage line, its options, and a `prepare` that
 * checks the arguments before any database work, then returns the step that needs the stores.
 */
import type { ParseArgsConfig } from 'node:util';
import type { ApiKeyStore } from '../adapters/api-keys/index.js';
import type { CredentialStore } from '../adapters/credential-store/index.js';
import type { Ledger } from '../adapters/ledger/index.js';
import type { MarketStore } from '../adapters/market-store/index.js';
import type { PaymentsContext } from '../domain/payments/payments-context.js';
import type { WithdrawalBooks } from '../domain/payments/withdrawals-context.js';

export type Options = NonNullable<ParseArgsConfig['options']>;
export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;
export type Output = Record<string, unknown>;

export interface Stores {
  store: ApiKeyStore;
  credentials: CredentialStore;
  ledger: Ledger;
  market: MarketStore;
  marketRateMicro: bigint;
  /** Settles an account's rentals and volumes up to now. */
  settleRentals: (accountId: string) => Promise<void>;
  /** Deposits and the rails configured for the server (reconciliation). */
  payments: PaymentsContext;
  /** Withdrawals, for review and reconciliation. */
  withdrawals: WithdrawalBooks;
}

export interface Command {
  usage: string;
  options: Options;
  prepare(values: Values): (stores: Stores) => Promise<Output>;
}

/** A mistake in the arguments: exit 2, with the usage. */
export class UsageError extends Error {}

export function required(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}
