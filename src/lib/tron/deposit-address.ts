/**
 * Deposit addresses (research/payments.md 4.1, DESIGN.md 11): one per account, at BIP-44 path
 * `m/44'/195'/0'/0/i` (195 is TRON's coin type). The service holds only the account-level extended public key of
 * `m/44'/195'/0'` (watch-only), so it derives the two non-hardened steps `0/i` itself and never sees a private key;
 * the signer, which holds the seed, reaches the same addresses by the full path.
 */
import { HDKey } from '@scure/bip32';
import { addressFromPublicKey } from './key-address.js';

/** The account-level path whose xpub the service is configured with. */
export const DEPOSIT_ACCOUNT_PATH = "m/44'/195'/0'";
/** The external chain under it (`/0`); `i` follows. */
const EXTERNAL_CHAIN = 0;
/** BIP-32: indices at or above 2^31 are hardened, which an xpub cannot derive. */
const MAX_INDEX = 0x7fffffff;

/** `m/44'/195'/0'` is three steps below the master key. */
const ACCOUNT_DEPTH = 3;

/**
 * Parses the configured xpub; throws when it is not an extended public key at the account level (a configuration
 * error at boot: an xprv would put a key in the API process, and an xpub of another level would derive addresses
 * the signer cannot spend from).
 */
export function parseDepositXpub(xpub: string): HDKey {
  const key = HDKey.fromExtendedKey(xpub);
  if (key.privateKey !== null) throw new Error('the deposit key must be an xpub, never an xprv');
  if (key.depth !== ACCOUNT_DEPTH) throw new Error(`the deposit xpub must be of ${DEPOSIT_ACCOUNT_PATH} (depth 3)`);
  return key;
}

/** The base58check address of deposit index `i` (`m/44'/195'/0'/0/i`) under the account-level xpub. */
export function depositAddress(account: HDKey, index: number): string {
  if (!Number.isInteger(index) || index < 0 || index > MAX_INDEX) {
    throw new RangeError(`deposit index must be an integer in 0..${MAX_INDEX}`);
  }
  const publicKey = account.deriveChild(EXTERNAL_CHAIN).deriveChild(index).publicKey;
  if (publicKey === null) throw new Error('derivation gave no public key');
  return addressFromPublicKey(publicKey);
}
