/**
 * What only the HTTP adapter has: java-tron's wire format as the fake node writes it (docs/api/http/…), the
 * TRON-PRO-API-KEY header, and how a node that misbehaves reaches the caller: always a TronNodeError saying
 * whether to try again (`unreachable`) or not (`refused`), never another exception.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TronChain, TronNodeError } from '../../src/adapters/tron-chain/index.js';
import { JavaTronHttpChain } from '../../src/adapters/tron-chain/java-tron-http.js';
import { addressToHex } from '../../src/lib/tron/address.js';
import { type FakeJavaTron, type JavaTronFault, startFakeJavaTron } from '../fakes/java-tron.js';
import { HOT_ADDRESS, OTHER_ADDRESS, signedTransfer, USDT } from '../fakes/java-tron-wallet.js';

let fake: FakeJavaTron;
let chain: JavaTronHttpChain;

const post = async (path: string, body: unknown): Promise<unknown> => {
  const response = await fetch(fake.url + path, { method: 'POST', body: JSON.stringify(body) });
  expect(response.status).toBe(200);
  return response.json();
};

beforeAll(async () => {
  fake = await startFakeJavaTron({ token: USDT, callFeeSun: 345_000n });
  fake.chain.mint(HOT_ADDRESS, 100_000_000n);
  chain = new JavaTronHttpChain({ nodeUrl: `${fake.url}/`, apiKey: 'key-123' });
});
afterAll(() => fake.close());

describe('the fake node speaks java-tron’s wire format', () => {
  it('answers broadcasthex with result, code, message, the transaction as a string, and the txid', async () => {
    const reference = await chain.referenceBlock();
    const good = signedTransfer({ to: OTHER_ADDRESS, amount: 1_000_000n, reference });
    const accepted = await post('/wallet/broadcasthex', { transaction: good.hex });
    expect(accepted).toMatchObject({ result: true, code: 'SUCCESS', message: '', txid: good.txid });
    expect(JSON.parse((accepted as { transaction: string }).transaction)).toMatchObject({ txID: good.txid });
    const cases: [string, string, RegExp][] = [
      [good.hex, 'DUP_TRANSACTION_ERROR', /^Dup transaction\.$/],
      [
        signedTransfer({ to: OTHER_ADDRESS, amount: 2n, reference, tamper: true }).hex,
        'SIGERROR',
        /^Validate signature error: /,
      ],
      [
        signedTransfer({ to: OTHER_ADDRESS, amount: 2n, reference, refBlockHash: 'ffffffffffffffff' }).hex,
        'TAPOS_ERROR',
        /^Tapos check error\.$/,
      ],
      [
        signedTransfer({ to: OTHER_ADDRESS, amount: 2n, reference, lifetimeMs: 1 }).hex,
        'TRANSACTION_EXPIRATION_ERROR',
        /^Transaction expired$/,
      ],
    ];
    for (const [hex, code, message] of cases) {
      const answer = (await post('/wallet/broadcasthex', { transaction: hex })) as Record<string, unknown>;
      expect(answer).toMatchObject({ result: false, code });
      expect(answer.message).toMatch(message);
    }
    expect(await chain.broadcastHex(cases[1]![0])).toMatchObject({
      kind: 'rejected',
      code: 'SIGERROR',
      message: expect.stringMatching(/^Validate signature error: /),
    });
    expect(await post('/wallet/broadcasthex', { transaction: 'xyz' })).toEqual({
      Error: expect.stringMatching(/^class .* : /),
    });
  });

  it('writes TransactionInfo with 20-byte hex log addresses, omits result on success, and {} when unknown', async () => {
    const transfer = signedTransfer({ to: OTHER_ADDRESS, amount: 3n, reference: await chain.referenceBlock() });
    await chain.broadcastHex(transfer.hex);
    const block = fake.chain.mineBlock();
    fake.chain.solidify();
    const info = (await post('/walletsolidity/gettransactioninfobyid', { value: transfer.txid })) as Record<
      string,
      unknown
    >;
    expect(info).toMatchObject({
      id: transfer.txid,
      blockNumber: block.number,
      blockTimeStamp: block.timestampMs,
      fee: 345_000,
      receipt: { result: 'SUCCESS' },
    });
    expect(info).not.toHaveProperty('result');
    expect(info.log).toEqual([expect.objectContaining({ address: addressToHex(USDT)?.slice(2) })]);
    expect(await post('/walletsolidity/gettransactioninfobyblocknum', { num: block.number })).toContainEqual(info);
    expect(await post('/walletsolidity/gettransactioninfobyblocknum', { num: 0 })).toEqual({});
    expect(await chain.trc20TransfersInBlock(0, USDT)).toEqual([]);
    expect(await post('/wallet/gettransactioninfobyid', { value: 'cd'.repeat(32) })).toEqual({});
    const head = (await post('/walletsolidity/getnowblock', {})) as {
      blockID: string;
      block_header: { raw_data: Record<string, unknown> };
    };
    expect(head.blockID).toBe(block.id);
    expect(head.block_header.raw_data).toMatchObject({
      number: block.number,
      timestamp: block.timestampMs,
      parentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('answers balanceOf by selector and parameter or by data, and reverts any other function', async () => {
    const parameter = `${'0'.repeat(24)}${addressToHex(HOT_ADDRESS)?.slice(2)}`;
    const call = { owner_address: addressToHex(HOT_ADDRESS), contract_address: addressToHex(USDT) };
    const bySelector = await post('/wallet/triggerconstantcontract', {
      ...call,
      function_selector: 'balanceOf(address)',
      parameter,
    });
    expect(bySelector).toMatchObject({
      result: { result: true },
      constant_result: [expect.stringMatching(/^[0-9a-f]{64}$/)],
    });
    expect(await post('/wallet/triggerconstantcontract', { ...call, data: `70a08231${parameter}` })).toEqual(
      bySelector,
    );
    expect(await post('/wallet/triggerconstantcontract', { ...call, data: `a9059cbb${parameter}` })).toMatchObject({
      result: { result: true },
      transaction: { ret: [{ ret: 'FAILED' }] },
    });
    const balance = BigInt(`0x${(bySelector as { constant_result: string[] }).constant_result[0]}`);
    expect(await chain.trc20Balance(HOT_ADDRESS, USDT, { solid: false })).toBe(balance);
    expect(fake.requests.at(-1)?.path).toBe('/wallet/triggerconstantcontract');
    await chain.trc20Balance(HOT_ADDRESS, USDT, { solid: true });
    expect(fake.requests.at(-1)?.path).toBe('/walletsolidity/triggerconstantcontract');
  });

  it('sends the API key as TRON-PRO-API-KEY, and no such header without one', async () => {
    await chain.solidHead();
    expect(fake.requests.at(-1)).toEqual({ path: '/walletsolidity/getnowblock', apiKey: 'key-123' });
    await new JavaTronHttpChain({ nodeUrl: fake.url }).referenceBlock();
    expect(fake.requests.at(-1)).toEqual({ path: '/wallet/getnowblock', apiKey: undefined });
  });
});

describe('a misbehaving node reaches the caller as a TronNodeError', () => {
  const calls: [string, (c: TronChain) => Promise<unknown>][] = [
    ['solidHead', (c) => c.solidHead()],
    ['referenceBlock', (c) => c.referenceBlock()],
    ['trc20TransfersInBlock', (c) => c.trc20TransfersInBlock(5, USDT)],
    ['transactionInfo', (c) => c.transactionInfo('ab'.repeat(32), { solid: true })],
    ['broadcastHex', (c) => c.broadcastHex('0a00')],
    ['trc20Balance', (c) => c.trc20Balance(HOT_ADDRESS, USDT, { solid: false })],
  ];
  const faults: [JavaTronFault, 'unreachable' | 'refused'][] = [
    ['http_503', 'unreachable'],
    ['rate_limited', 'unreachable'],
    ['lite_node', 'refused'],
    ['truncated_json', 'refused'],
    ['wrong_shape', 'refused'],
  ];

  for (const [fault, kind] of faults) {
    it(`${fault} → ${kind}, for every call`, async () => {
      for (const [, call] of calls) {
        fake.failNext(fault);
        const error = await call(chain).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(TronNodeError);
        expect(error).toMatchObject({ kind });
      }
    });
  }

  it('a node that never answers is unreachable after the timeout; so is a closed port; a 404 is refused', async () => {
    fake.failNext('no_answer');
    const slow = new JavaTronHttpChain({ nodeUrl: fake.url, timeoutMs: 200 });
    await expect(slow.solidHead()).rejects.toMatchObject({
      kind: 'unreachable',
      message: expect.stringMatching(/within 200 ms/),
    });
    const closed = await startFakeJavaTron({ token: USDT });
    await closed.close();
    await expect(new JavaTronHttpChain({ nodeUrl: closed.url }).solidHead()).rejects.toMatchObject({
      kind: 'unreachable',
    });
    await expect(new JavaTronHttpChain({ nodeUrl: `${fake.url}/nowhere` }).solidHead()).rejects.toMatchObject({
      kind: 'refused',
    });
  });
});
