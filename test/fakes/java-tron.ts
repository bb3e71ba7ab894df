/**
 * A fake java-tron node (issue 27 item 6; research/payments.md 6.2): a loopback HTTP server speaking java-tron's
 * HTTP API for the endpoints the tron-chain adapter uses, over a MemoryTronChain
 * (src/adapters/tron-chain/memory.ts), which verifies secp256k1 signatures against the owner, TAPOS and expiry,
 * refuses duplicates, and reports only solidified transfers on the solidity paths:
 *
 *   POST /wallet/getnowblock, /walletsolidity/getnowblock            head / solidified head (`protocol.Block`)
 *   POST /walletsolidity/gettransactioninfobyblocknum {num}          `[TransactionInfo]` of a solidified block
 *   POST /wallet/gettransactioninfobyid, /walletsolidity/… {value}  `TransactionInfo` or `{}`
 *   POST /wallet/broadcasthex {transaction}                          `{result, code, message, transaction, txid}`
 *   POST /wallet/triggerconstantcontract, /walletsolidity/…         `balanceOf(address)` of the token
 *
 * Errors as java-tron gives them (docs/api/http/index.md): HTTP 200 with `{"Error": "<class> : <message>"}`; an
 * unknown path 404. `failNext` makes the next requests misbehave, one fault each, in order: HTTP 503, the rate
 * limiter's error body, a lite full node's bare text, a truncated JSON body, a wrong shape, or no answer at all.
 * The test drives the chain itself (`fake.chain.mineBlock()`, `solidify()`, `mint()`, `addTransfers()`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MemoryTronChain, type MemoryTronChainOptions } from '../../src/adapters/tron-chain/memory.js';
import { isRecord } from '../../src/lib/is-record.js';
import { blockJson, broadcastJson, constantCallJson, infoJson } from './java-tron-json.js';

export type JavaTronFault = 'http_503' | 'rate_limited' | 'lite_node' | 'truncated_json' | 'wrong_shape' | 'no_answer';

export interface FakeJavaTron {
  /** The TRON_NODE_URL to give the adapter. */
  url: string;
  chain: MemoryTronChain;
  /** Every request's path and `TRON-PRO-API-KEY` header, in arrival order. */
  requests: { path: string; apiKey: string | undefined }[];
  failNext(...faults: JavaTronFault[]): void;
  close(): Promise<void>;
}

type Json = Record<string, unknown> | unknown[];

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(body);
}

const javaError = (message: string): Json => ({ Error: message });

/** The answer java-tron gives one request (always HTTP 200 once a servlet takes it). */
function route(chain: MemoryTronChain, path: string, body: Record<string, unknown>): Json | null {
  switch (path) {
    case '/wallet/getnowblock':
      return blockJson(chain.head);
    case '/walletsolidity/getnowblock':
      return blockJson(chain.solid);
    case '/walletsolidity/gettransactioninfobyblocknum': {
      if (typeof body.num !== 'number') return javaError('class org.tron.json.JSONException : num is not a number');
      if (body.num <= 0) return {};
      return chain.solidInfosInBlock(body.num).map((info) => infoJson(info, chain.token));
    }
    case '/wallet/gettransactioninfobyid':
    case '/walletsolidity/gettransactioninfobyid': {
      if (typeof body.value !== 'string' || !/^([0-9a-fA-F]{2})*$/.test(body.value)) {
        return javaError('class org.bouncycastle.util.encoders.DecoderException : invalid hex');
      }
      const info = chain.info(body.value, path.startsWith('/walletsolidity/'));
      return info === null ? {} : infoJson(info, chain.token);
    }
    case '/wallet/broadcasthex': {
      const result = chain.broadcast(typeof body.transaction === 'string' ? body.transaction : '');
      return 'error' in result ? javaError(result.error) : broadcastJson(result.outcome, result.decoded);
    }
    case '/wallet/triggerconstantcontract':
    case '/walletsolidity/triggerconstantcontract':
      return constantCallJson(path.startsWith('/walletsolidity/') ? chain.solid : chain.head, chain.token, body);
    default:
      return null;
  }
}

/** Sends the fault's answer; `no_answer` keeps the socket open until the server closes. */
function misbehave(fault: JavaTronFault, res: ServerResponse): void {
  if (fault === 'http_503') send(res, 503, '<html><body>503 Service Unavailable</body></html>');
  else if (fault === 'rate_limited') send(res, 200, JSON.stringify(javaError('lack of computing resources')));
  else if (fault === 'lite_node') send(res, 200, 'this API is closed because this node is a lite fullnode');
  else if (fault === 'truncated_json') send(res, 200, '{"blockID": "00000');
  else if (fault === 'wrong_shape') send(res, 200, JSON.stringify({ blockID: 42, result: 'yes', txid: null }));
}

async function readBody(req: IncomingMessage): Promise<string> {
  let raw = '';
  for await (const chunk of req) raw += chunk;
  return raw;
}

export async function startFakeJavaTron(options: MemoryTronChainOptions): Promise<FakeJavaTron> {
  const chain = new MemoryTronChain(options);
  const faults: JavaTronFault[] = [];
  const requests: FakeJavaTron['requests'] = [];
  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    const apiKey = req.headers['tron-pro-api-key'];
    requests.push({ path, apiKey: Array.isArray(apiKey) ? apiKey[0] : apiKey });
    const fault = faults.shift();
    if (fault !== undefined) return misbehave(fault, res);
    if (req.method !== 'POST') return send(res, 405, JSON.stringify(javaError('HTTP method GET is not supported')));
    let body: unknown;
    try {
      body = raw === '' ? {} : JSON.parse(raw);
    } catch {
      return send(res, 200, JSON.stringify(javaError('class org.tron.json.JSONException : not JSON')));
    }
    const answer = route(chain, path, isRecord(body) ? body : {});
    if (answer === null) return send(res, 404, '<html><body>Not Found</body></html>');
    send(res, 200, JSON.stringify(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    chain,
    requests,
    failNext: (...next) => faults.push(...next),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
