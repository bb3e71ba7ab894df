import { z } from 'zod';

const usd = (fallback: number) => z.coerce.number().nonnegative().max(1_000_000_000).default(fallback);

/**
 * USDT-TRC20 withdrawals (issue 27 item 4, DESIGN.md 11; research/payments.md 5.3), part of config.ts's schema.
 * Withdrawals are on when TRON_NODE_URL and TRON_HOT_WALLET_ADDRESS are set; the hot wallet's key is only ever
 * read by the signer process (`npm run signer`, src/signer/), never by this one.
 */
export const WITHDRAWAL_SETTINGS = {
  /** The address the signer sends from (its key's address): withdrawals are off without it. */
  TRON_HOT_WALLET_ADDRESS: z
    .string()
    .regex(/^T[1-9A-HJ-NP-Za-km-z]{33}$/)
    .optional(),
  /** The fee each withdrawal pays on top of its amount, in USD: it covers the energy the transfer burns. */
  WITHDRAW_FEE_USD: usd(1),
  /** The smallest and the largest single withdrawal, in USD. */
  WITHDRAW_MIN_USD: usd(10),
  WITHDRAW_MAX_USD: usd(10_000),
  /** What one account, and everyone together, may withdraw per UTC day (amount + fee), in USD. */
  WITHDRAW_DAILY_ACCOUNT_USD: usd(10_000),
  WITHDRAW_DAILY_TOTAL_USD: usd(100_000),
  /** Above this amount a withdrawal waits for an operator (`admin payments withdrawals approve`). */
  WITHDRAW_APPROVAL_USD: usd(1_000),
  /** How long a new address in the book waits before withdrawals may go to it. */
  WITHDRAW_ADDRESS_COOLING_HOURS: z.coerce
    .number()
    .nonnegative()
    .max(24 * 365)
    .default(24),
  /** How long a provider's earning waits before it can be withdrawn: chargebacks on the renter's money land first. */
  EARNINGS_HOLD_DAYS: z.coerce.number().nonnegative().max(365).default(7),
  /**
   * How far past its expiration (chain time) a signed transaction that no solidified block holds is taken as never
   * landing: then the withdrawal fails and its hold goes back. Default 60 s, 20 blocks.
   */
  TRON_EXPIRY_MARGIN_MS: z.coerce.number().int().nonnegative().default(60_000),
  /** How often each gateway process moves withdrawals along (broadcast, confirmation, settlement). */
  WITHDRAW_POLL_MS: z.coerce.number().int().positive().default(3_000),
} as const;
