/**
 * java-tron's JSON shapes (`visible=false`: hex addresses and bytes, int64 as numbers, proto3 defaults omitted),
 * written from the in-memory chain for the fake node. Each shape follows the docs' examples in
 * tronprotocol/documentation-en docs/api/http/:
 *   block-and-tx-query/getnowblock.md            `protocol.Block` with the extra `blockID`
 *   block-and-tx-query/gettransactioninfobyid.md `protocol.TransactionInfo` (`{}` when not on chain)
 *   tx-build-and-broadcast/broadcasthex.md       `{result, code, message, transaction, txid}`
 *   smart-contract/triggerconstantcontract.md    `TransactionExtention` with `constant_result`
 */
import { bytesToHex, hexToBytes, utf8ToBytes } from '@noble/hashes/utils.js';
import type { BroadcastOutcome } from '../../src/adapters/tron-chain/index.js';
import type { StoredBlock } from '../../src/adapters/tron-chain/memory.js';
import type { TransactionInfoRecord } from '../../src/adapters/tron-chain/transaction-infos.js';
import { addressFromHex, addressToHex } from '../../src/lib/tron/address.js';
import type { DecodedTransaction } from '../../src/lib/tron/transaction.js';
import { BALANCE_OF_SELECTOR, decodeBalanceOfCall } from '../../src/lib/tron/trc20.js';

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

const hexText = (text: string): string => bytesToHex(utf8ToBytes(text));

/**
 * A constant call against the token as of `block`: only `balanceOf(address)` (by `function_selector` and
 * `parameter`, or by `data`) answers; another contract is CONTRACT_VALIDATE_ERROR, another function reverts
 * (`result.result` true, `transaction.ret[0].ret` FAILED), as the docs describe.
 */
export function constantCallJson(
  block: StoredBlock,
  token: string,
  body: Record<string, unknown>,
): Record<string, unknown> {
  const contract = typeof body.contract_address === 'string' ? addressFromHex(body.contract_address) : null;
  if (contract !== token) {
    return { result: { code: 'CONTRACT_VALIDATE_ERROR', message: hexText('Smart contract is not exist.') } };
  }
  const selector = body.function_selector === 'balanceOf(address)' ? BALANCE_OF_SELECTOR : '';
  const data = typeof body.data === 'string' ? body.data : `${selector}${String(body.parameter ?? '')}`;
  const holder = /^([0-9a-fA-F]{2})*$/.test(data) ? decodeBalanceOfCall(hexToBytes(data.toLowerCase())) : null;
  if (holder === null) {
    return {
      result: { result: true, message: hexText('REVERT opcode executed') },
      constant_result: [''],
      transaction: { ret: [{ ret: 'FAILED' }], visible: false },
    };
  }
  const balance = block.balances.get(holder) ?? 0n;
  return {
    result: { result: true },
    energy_used: 935,
    constant_result: [balance.toString(16).padStart(64, '0')],
    transaction: { ret: [{}], visible: false },
  };
}
