/**
 * The tron-chain port over java-tron's HTTP API (research/payments.md 4.2, 5.1; DESIGN.md 11): the full node's
 * `/wallet/*` for the newest block, broadcasts and unconfirmed state, and its solidity view `/walletsolidity/*`
 * for everything money moves on. One base URL serves both (java-tron's FullNode and TronGrid alike). TronGrid
 * wants its key in the `TRON-PRO-API-KEY` header (developers.tron.network/reference/api-key).
 *
 * Failures are `TronNodeError` (index.ts): `unreachable` for no answer, a timeout, 5xx, 429 and java-tron's
 * rate-limit body; `refused` for an answer we cannot use (docs/api/http/index.md: errors come as HTTP 200 with
 * `{"Error": …}`, a disabled API as 404, a lite full node's history queries as bare text).
 */
import { readUpTo } from '../../lib/read-up-to.js';
import { addressToHex } from '../../lib/tron/address.js';
import { encodeBalanceOfParameter } from '../../lib/tron/trc20.js';
import {
  type BroadcastOutcome,
  type ChainBlock,
  type TransactionState,
  type Trc20TransferEvent,
  type TronChain,
  TronNodeError,
} from './index.js';
import {
  readBlock,
  readBroadcast,
  readTransactionInfo,
  readTransactionInfoList,
  readUint256Result,
} from './java-tron-wire.js';
import { transactionState, transferEvents } from './transaction-infos.js';

export interface JavaTronHttpOptions {
  /** The node's base URL (`TRON_NODE_URL`), e.g. `https://api.trongrid.io` or `http://127.0.0.1:8090`. */
  nodeUrl: string;
  /** Sent as `TRON-PRO-API-KEY` when set. */
  apiKey?: string;
  /** Per request, connect to last byte; default 10 s. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;
/** Far above a busy mainnet block's transaction infos (a few MB); past it the answer is not a node's. */
const BODY_LIMIT_BYTES = 64 * 1024 * 1024;
/** java-tron's answer when its rate limiter rejects a call (HTTP 200): a transient condition. */
const RATE_LIMITED = 'lack of computing resources';

export class JavaTronHttpChain implements TronChain {
  readonly #base: string;
  readonly #headers: Record<string, string>;
  readonly #timeoutMs: number;

  constructor(options: JavaTronHttpOptions) {
    this.#base = options.nodeUrl.replace(/\/+$/, '');
    this.#headers = { 'content-type': 'application/json', accept: 'application/json' };
    if (options.apiKey) this.#headers['TRON-PRO-API-KEY'] = options.apiKey;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  async solidHead(): Promise<ChainBlock> {
    return readBlock(await this.#post('/walletsolidity/getnowblock', {}));
  }

  async trc20TransfersInBlock(blockNumber: number, contract: string): Promise<Trc20TransferEvent[]> {
    const body = await this.#post('/walletsolidity/gettransactioninfobyblocknum', { num: blockNumber });
    return transferEvents(readTransactionInfoList(body), contract);
  }

  async referenceBlock(): Promise<ChainBlock> {
    return readBlock(await this.#post('/wallet/getnowblock', {}));
  }

  async broadcastHex(transactionHex: string): Promise<BroadcastOutcome> {
    return readBroadcast(await this.#post('/wallet/broadcasthex', { transaction: transactionHex }));
  }

  async transactionInfo(txid: string, options: { solid: boolean }): Promise<TransactionState> {
    const path = options.solid ? '/walletsolidity/gettransactioninfobyid' : '/wallet/gettransactioninfobyid';
    return transactionState(readTransactionInfo(await this.#post(path, { value: txid })));
  }

  async trc20Balance(holder: string, contract: string, options: { solid: boolean }): Promise<bigint> {
    const [holderHex, contractHex] = [addressToHex(holder), addressToHex(contract)];
    if (holderHex === null || contractHex === null) throw new Error('trc20Balance needs base58check addresses');
    const path = options.solid ? '/walletsolidity/triggerconstantcontract' : '/wallet/triggerconstantcontract';
    const body = await this.#post(path, {
      owner_address: holderHex,
      contract_address: contractHex,
      function_selector: 'balanceOf(address)',
      parameter: encodeBalanceOfParameter(holder),
    });
    return readUint256Result(body);
  }

  /** One POST; the parsed JSON body, or a `TronNodeError` saying whether trying again may help. */
  async #post(path: string, body: object): Promise<unknown> {
    let response: Response;
    let text: string;
    try {
      response = await fetch(this.#base + path, {
        method: 'POST',
        headers: this.#headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      const read = await readUpTo((response.body ?? []) as AsyncIterable<Buffer>, BODY_LIMIT_BYTES);
      if (read.cut)
        throw new TronNodeError('refused', `the TRON node's answer to ${path} is over ${BODY_LIMIT_BYTES} bytes`);
      text = read.bytes.toString('utf8');
    } catch (error) {
      if (error instanceof TronNodeError) throw error;
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      const why = timedOut ? `did not answer within ${this.#timeoutMs} ms` : 'could not be reached';
      throw new TronNodeError('unreachable', `the TRON node ${why} (${path})`);
    }
    if (response.status === 429 || response.status >= 500) {
      throw new TronNodeError('unreachable', `the TRON node answered HTTP ${response.status} (${path})`);
    }
    if (response.status !== 200)
      throw new TronNodeError('refused', `the TRON node answered HTTP ${response.status} (${path})`);
    return parseAnswer(text, path);
  }
}

function parseAnswer(text: string, path: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // A lite full node answers history queries with bare text (docs/api/http/index.md).
    throw new TronNodeError('refused', `the TRON node answered ${path} with non-JSON: ${text.slice(0, 120)}`);
  }
  if (typeof parsed === 'object' && parsed !== null && 'Error' in parsed) {
    const message = String((parsed as { Error: unknown }).Error);
    const kind = message.includes(RATE_LIMITED) ? 'unreachable' : 'refused';
    throw new TronNodeError(kind, `the TRON node answered ${path} with an error: ${message.slice(0, 200)}`);
  }
  return parsed;
}
