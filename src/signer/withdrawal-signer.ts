import { bytesToHex } from '@noble/hashes/utils.js';
import type { Ledger } from '../adapters/ledger/index.js';
import type { TronChain } from '../adapters/tron-chain/index.js';
import type { WithdrawalRecord, WithdrawalStore } from '../adapters/withdrawal-store/index.js';
import { withdrawalHoldId } from '../domain/payments/withdrawals-context.js';
import { isTronAddress } from '../lib/tron/address.js';
import { addressFromPrivateKey } from '../lib/tron/key-address.js';
import { signTransactionId } from '../lib/tron/signature.js';
import {
  encodeSignedTransaction,
  encodeTriggerSmartContract,
  taposFrom,
  transactionId,
} from '../lib/tron/transaction.js';
import { encodeTransferCall } from '../lib/tron/trc20.js';

export interface SignerDeps {
  withdrawals: WithdrawalStore;
  /** Read only: the hold each withdrawal must have before it is signed. */
  ledger: Pick<Ledger, 'getHold'>;
  chain: TronChain;
  /** The USDT contract the transfer calls. */
  contract: string;
  /** The hot wallet's key: held by this process alone. */
  privateKey: Uint8Array;
  feeLimitSun: bigint;
  /** How long after its reference block a transaction may still enter a block (tronweb's default: 60 s). */
  lifetimeMs: number;
  /** The largest withdrawal this signer signs, whatever the database says. */
  maxMicros: bigint;
  now: () => number;
  log: (event: { withdrawalId: string; outcome: 'signed' | 'refused' | 'lost_race'; why?: string }) => void;
}

/** Refused withdrawals stay approved, so a pass reads far more than it expects to sign: they never hide newer ones. */
const BATCH = 500;
const UNCONFIRMED_LIMIT = 1_000;

/**
 * The signer (issue 27 item 4; research/payments.md 5.3 "the signer is a separate process"): the only holder of the
 * hot wallet's key. It takes approved withdrawals from the database and checks each again itself (destination,
 * amount, the ledger hold that pays for it, the wallet's funds), builds the USDT transfer, signs it, and stores the
 * signed bytes with a compare-and-set from `approved`. It never broadcasts and never approves; the gateway's
 * pipeline sends the stored bytes. A signature whose store lost the race (or whose process died before it) was
 * never sent anywhere, so the withdrawal still has exactly one transaction: the stored one.
 */
export async function signApprovedWithdrawals(deps: SignerDeps): Promise<number> {
  let signed = 0;
  const hotWallet = addressFromPrivateKey(deps.privateKey); // once a pass: a key's address is a point multiplication
  // What signed transactions not yet in a block will take from the wallet: the funds check leaves it to them.
  const unconfirmed = await deps.withdrawals.inStatus(['signed', 'broadcast'], UNCONFIRMED_LIMIT);
  let committedMicros = unconfirmed.reduce((sum, w) => sum + w.amountMicros, 0n);
  for (const withdrawal of await deps.withdrawals.inStatus(['approved'], BATCH)) {
    const why = await refusal(deps, hotWallet, withdrawal, committedMicros);
    if (why !== null) {
      deps.log({ withdrawalId: withdrawal.id, outcome: 'refused', why });
      continue;
    }
    const stored = await deps.withdrawals.recordSignature(
      withdrawal.id,
      await sign(deps, hotWallet, withdrawal),
      deps.now(),
    );
    deps.log({ withdrawalId: withdrawal.id, outcome: stored === null ? 'lost_race' : 'signed' });
    if (stored === null) continue;
    signed++;
    committedMicros += withdrawal.amountMicros;
  }
  return signed;
}

/**
 * Why this signer will not sign the withdrawal now, or null. A refused one stays approved: an operator rejects it,
 * or the signer takes it once the reason is gone (the wallet refilled).
 */
async function refusal(
  deps: SignerDeps,
  hotWallet: string,
  withdrawal: WithdrawalRecord,
  committedMicros: bigint,
): Promise<string | null> {
  if (!isTronAddress(withdrawal.address) || withdrawal.address === deps.contract || withdrawal.address === hotWallet)
    return `destination ${withdrawal.address} is not one a withdrawal may go to`;
  if (withdrawal.amountMicros <= 0n || withdrawal.amountMicros > deps.maxMicros)
    return `amount ${withdrawal.amountMicros} is outside what this signer signs`;
  const hold = await deps.ledger.getHold(withdrawalHoldId(withdrawal.id));
  if (
    hold === null ||
    hold.status !== 'pending' ||
    hold.accountId !== withdrawal.accountId ||
    hold.amountMicros !== withdrawal.amountMicros + withdrawal.feeMicros
  )
    return 'its ledger hold is missing, not pending, or not its amount and fee';
  const funds = await deps.chain.trc20Balance(hotWallet, deps.contract, { solid: false });
  if (funds - committedMicros < withdrawal.amountMicros)
    return `the hot wallet holds ${funds}, ${committedMicros} of it for transfers on their way: less than ${withdrawal.amountMicros}`;
  return null;
}

/** The last `raw.timestamp` this process signed with: each transaction gets a later one. */
let lastTimestampMs = 0;

async function sign(deps: SignerDeps, hotWallet: string, withdrawal: WithdrawalRecord) {
  const tapos = taposFrom(await deps.chain.referenceBlock(), deps.lifetimeMs);
  // Two withdrawals of one amount to one address, signed on one reference block, were byte for byte one
  // transaction: the second's store hit the unique txid and threw, ending the whole pass (and, had it been stored,
  // one transfer would have settled both). The signer's clock as the creation time (wallet-cli sets it so; java-tron
  // checks only the expiration) makes each its own; the expiration stays in chain time, from the reference block.
  lastTimestampMs = Math.max(deps.now(), lastTimestampMs + 1);
  const raw = encodeTriggerSmartContract({
    ...tapos,
    timestampMs: lastTimestampMs,
    owner: hotWallet,
    contract: deps.contract,
    data: encodeTransferCall(withdrawal.address, withdrawal.amountMicros),
    feeLimitSun: deps.feeLimitSun,
  });
  const txid = transactionId(raw);
  const hex = bytesToHex(encodeSignedTransaction(raw, [signTransactionId(txid, deps.privateKey)]));
  return { txid, hex, expirationMs: tapos.expirationMs };
}
