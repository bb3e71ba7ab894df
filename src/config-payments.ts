import { z } from 'zod';

/**
 * The payment rails' settings (issue 27, DESIGN.md 11), part of config.ts's schema. A rail without its settings is
 * off: it says so at start-up, and its deposits answer 503 `payment_rail_unavailable`.
 */
export const PAYMENT_SETTINGS = {
  /** Stripe Checkout for card deposits in USD: the secret key (`sk_…`). */
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
  /** The signing secrets of the Stripe webhook endpoint (`whsec_…`), comma-separated while one is being rotated. */
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** Stripe's API base; tests point it at a loopback fake. */
  STRIPE_API_URL: z.string().url().default('https://api.stripe.com'),
  /** YooKassa for SBP and Russian cards in rubles: the shop id and its secret key. */
  YOOKASSA_SHOP_ID: z.string().min(1).optional(),
  YOOKASSA_SECRET_KEY: z.string().min(1).optional(),
  YOOKASSA_API_URL: z.string().url().default('https://api.yookassa.ru/v3'),
  /** YooKassa's published notification senders (CIDRs, comma-separated); unset: every sender, proven by re-fetch. */
  YOOKASSA_SENDER_RANGES: z.string().min(1).optional(),
  /** A java-tron HTTP API (full and solidity paths) for USDT-TRC20 deposits. */
  TRON_NODE_URL: z.string().url().optional(),
  /** Sent as TRON-PRO-API-KEY to hosted nodes that ask for one. */
  TRON_API_KEY: z.string().min(1).optional(),
  /** The USDT token contract whose transfers are credited; anything else sent to an address is ignored. */
  TRON_USDT_CONTRACT: z
    .string()
    .regex(/^T[1-9A-HJ-NP-Za-km-z]{33}$/)
    .default('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'),
  /** The account-level extended public key of m/44'/195'/0' (`xpub…`); addresses are m/44'/195'/0'/0/i. No seed. */
  TRON_XPUB: z
    .string()
    .regex(/^xpub[1-9A-HJ-NP-Za-km-z]{100,}$/)
    .optional(),
  /** How often the watcher reads new solidified blocks. */
  TRON_POLL_MS: z.coerce.number().int().positive().default(3_000),
} as const;
