import { readFileSync, statSync } from 'node:fs';
import { z } from 'zod';
import { StartupError } from '../runtime/startup.js';

/**
 * The signer's own settings (issue 27 item 4). Only this process reads TRON_SIGNER_KEY_FILE; the gateway's
 * configuration has no setting for a key. The database is the gateway's: the signer reads approved withdrawals
 * from it and writes their signed bytes back.
 */
const schema = z.object({
  DATABASE_URL: z.string().min(1).default('sqlite:data/gateway.sqlite'),
  TRON_NODE_URL: z.string().url(),
  TRON_API_KEY: z.string().min(1).optional(),
  TRON_USDT_CONTRACT: z
    .string()
    .regex(/^T[1-9A-HJ-NP-Za-km-z]{33}$/)
    .default('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'),
  /** A file holding the hot wallet's private key as 64 hex digits; readable by the signer's user alone. */
  TRON_SIGNER_KEY_FILE: z.string().min(1),
  /** The most TRX (in sun) a transfer may burn for energy: 100 TRX. */
  TRON_FEE_LIMIT_SUN: z.coerce.bigint().positive().default(100_000_000n),
  TRON_TX_LIFETIME_MS: z.coerce.number().int().min(10_000).max(86_400_000).default(60_000),
  SIGNER_POLL_MS: z.coerce.number().int().positive().default(2_000),
  /** The largest single withdrawal the signer signs, in USD, whatever the database says. */
  WITHDRAW_MAX_USD: z.coerce.number().positive().default(10_000),
});

export type SignerConfig = z.infer<typeof schema>;

export function loadSignerConfig(env: NodeJS.ProcessEnv = process.env): SignerConfig {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const first = parsed.error.issues[0]!;
  throw new StartupError(first.path.join('.'), first.message);
}

/** The key from its file: 64 hex digits (a trailing newline allowed); refused when others may read the file. */
export function readSignerKey(path: string): Uint8Array {
  let mode: number;
  try {
    mode = statSync(path).mode;
  } catch {
    throw new StartupError('TRON_SIGNER_KEY_FILE', `${path} cannot be read`);
  }
  if ((mode & 0o077) !== 0)
    throw new StartupError('TRON_SIGNER_KEY_FILE', `${path} is readable by other users: chmod 600 it`);
  const text = readFileSync(path, 'utf8').trim();
  if (!/^[0-9a-fA-F]{64}$/.test(text))
    throw new StartupError('TRON_SIGNER_KEY_FILE', 'must hold the private key as 64 hex digits');
  return Uint8Array.from(Buffer.from(text, 'hex'));
}
