/**
 * java-tron's JSON shapes (`visible=false`: hex addresses and bytes, int64 as numbers, proto3 defaults omitted),
 * written from the in-memory chain for the fake node. Each shape follows the docs' examples in
 * tronprotocol/documentation-en docs/api/http/:
 *   block-and-tx-query/getnowblock.md            `protocol.Block` with the extra `blockID`
 *   block-and-tx-query/gettransactioninfobyid.md `protocol.TransactionInfo` (`{}` when not on chain)
 *   tx-build-and-broadcast/broadcasthex.md       `{result, code, message, transaction, txid}`
 */
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { BroadcastOutcome } from '../../src/adapters/tron-chain/index.js';
import type { StoredBlock } from '../../src/adapters/tron-chain/memory.js';
import type { TransactionInfoRecord } from '../../src/adapters/tron-chain/transaction-infos.js';
import { addressToHex } from '../../src/lib/tron/address.js';
import type { DecodedTransaction } from '../../src/lib/tron/transaction.js';

/** The witness every fake block names (any 0x41 address will do; java-tron prints it as hex). */
const WITNESS = '41928c9af0651632157ef27a2cf17ca72c575a4d21';

export function blockJson(block: StoredBlock): Record<string, unknown> {
  const rawData = {
    number: block.number,
    txTrieRoot: block.id.slice(0, 16).padEnd(64, '0'),
    witness_address: WITNESS,
    parentHash: block.parentId,
    version: 32,
    timestamp: block.timestampMs,
  };
  const json: Record<string, unknown> = {
    blockID: block.id,
    block_header: { raw_data: rawData, witness_signature: '00'.repeat(65) },
  };
  // Repeated fields are omitted when empty; the watcher reads transactions from the infos, not from here.
  if (block.infos.length > 0) json.transactions = block.infos.map((info) => ({ txID: info.txid }));
  return json;
}

export function infoJson(info: TransactionInfoRecord, token: string): Record<string, unknown> {
  const receipt: Record<string, unknown> = { energy_usage_total: 14_650 };
  if (info.receiptResult !== null) receipt.result = info.receiptResult;
  const json: Record<string, unknown> = {
    id: info.txid,
    blockNumber: info.blockNumber,
    blockTimeStamp: info.blockTimeMs,
    contractResult: [info.failed ? '' : `${'0'.repeat(63)}1`],
    contract_address: addressToHex(token),
    receipt,
  };
  if (info.feeSun > 0n) json.fee = Number(info.feeSun);
  if (info.logs.length > 0) json.log = info.logs;
  if (info.failed) {
    json.result = 'FAILED';
    json.resMessage = bytesToHex(utf8ToBytes('REVERT opcode executed'));
  }
  return json;
}

/** broadcasthex's answer: java-tron returns the txid and the transaction (as a JSON string) even when it refuses. */
export function broadcastJson(outcome: BroadcastOutcome, decoded: DecodedTransaction): Record<string, unknown> {
  const code =
    outcome.kind === 'accepted' ? 'SUCCESS' : outcome.kind === 'duplicate' ? 'DUP_TRANSACTION_ERROR' : outcome.code;
  const message =
    outcome.kind === 'rejected' ? outcome.message : outcome.kind === 'duplicate' ? 'Dup transaction.' : '';
  const transaction = {
    visible: true,
    txID: decoded.txid,
    raw_data_hex: bytesToHex(decoded.raw),
    signature: decoded.signatures.map(bytesToHex),
  };
  return {
    result: outcome.kind === 'accepted',
    code,
    message,
    transaction: JSON.stringify(transaction),
    txid: outcome.txid,
  };
}
