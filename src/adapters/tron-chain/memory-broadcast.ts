/**
 * The checks java-tron makes before it pools a broadcast transaction, in its order (framework `Wallet
 * .broadcastTransaction`, `Manager.pushTransaction` → `validateTapos`, `validateCommon`, `validateDup`,
 * `validateSignature`), with its codes and messages (docs/api/http/tx-build-and-broadcast/broadcasttransaction.md),
 * for the in-memory chain. Contract execution (balance, call data) happens later, when a block is made.
 */
import { recoverSigner } from '../../lib/tron/signature.js';
import { type DecodedTransaction, TRIGGER_SMART_CONTRACT } from '../../lib/tron/transaction.js';
import type { ChainBlock } from './index.js';

/** `MAXIMUM_TIME_UNTIL_EXPIRATION`: a transaction may not expire more than 24 h after the head block. */
const MAX_LIFETIME_MS = 24 * 60 * 60 * 1000;

export interface BroadcastView {
  head: ChainBlock;
  /** When the next block will be made: a transaction expiring by then can no longer land. */
  nextSlotMs: number;
  block(number: number): ChainBlock | undefined;
  seen(txid: string): boolean;
  /** The only contract the chain knows (the configured token). */
  token: string;
}

export interface Rejection {
  code: string;
  message: string;
}

const reject = (code: string, message: string): Rejection => ({ code, message });

/** The rejection java-tron would answer, or null when the transaction would be pooled. */
export function checkBroadcast(view: BroadcastView, tx: DecodedTransaction): Rejection | null {
  const [contract, ...more] = tx.contracts;
  if (contract === undefined) return reject('CONTRACT_VALIDATE_ERROR', 'Contract validate error : No contract!');
  if (more.length > 0)
    return reject('CONTRACT_VALIDATE_ERROR', 'Contract validate error : act size should be exactly 1');
  // TransactionCapsule.checkExpiration: expired when it ends before the next block's slot.
  if (tx.expirationMs < view.nextSlotMs) return reject('TRANSACTION_EXPIRATION_ERROR', 'Transaction expired');
  if (!taposHolds(view, tx)) return reject('TAPOS_ERROR', 'Tapos check error.');
  if (tx.expirationMs - view.head.timestampMs > MAX_LIFETIME_MS) {
    return reject('TRANSACTION_EXPIRATION_ERROR', 'Transaction expired');
  }
  if (view.seen(tx.txid)) return reject('DUP_TRANSACTION_ERROR', 'Dup transaction.');
  const [signature, ...others] = tx.signatures;
  const signer = signature === undefined || others.length > 0 ? null : recoverSigner(tx.txid, signature);
  if (signer === null || signer !== contract.owner) {
    return reject('SIGERROR', `Validate signature error: trans sig validate failed, id: ${tx.txid}`);
  }
  if (contract.type !== TRIGGER_SMART_CONTRACT || contract.contract !== view.token) {
    return reject('CONTRACT_VALIDATE_ERROR', 'Contract validate error : No contract or not a valid smart contract');
  }
  return null;
}

/**
 * java-tron keeps the last 65,536 block ids keyed by the low 16 bits of their number (`RecentBlockStore`): the
 * reference must be the newest block with those bits, so a block 65,536 or more behind the head no longer is.
 */
function taposHolds(view: BroadcastView, tx: DecodedTransaction): boolean {
  if (!/^[0-9a-f]{4}$/.test(tx.refBlockBytes)) return false;
  const low = Number.parseInt(tx.refBlockBytes, 16);
  const newest = view.head.number - ((view.head.number - low) & 0xffff);
  return view.block(newest)?.id.slice(16, 32) === tx.refBlockHash;
}
