/**
 * The one behavioural contract of the tron-chain port (research/payments.md 4.2, 5.1, 6.4 items 10, 13, 15-17),
 * run against the in-memory twin and against the java-tron HTTP adapter talking to the fake node. `control` is the
 * chain behind the implementation, which the test drives (mint, inject transfers, make and solidify blocks).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TronChain, TronNodeError } from '../../src/adapters/tron-chain/index.js';
import type { MemoryTronChain } from '../../src/adapters/tron-chain/memory.js';
import { FAKE_TOKEN, HOT_ADDRESS, OTHER_ADDRESS, OTHER_KEY, signedTransfer, USDT } from '../fakes/java-tron-wallet.js';

export interface TronChainSubject {
  chain: TronChain;
  control: MemoryTronChain;
  cleanup(): Promise<void>;
}

/** A deposit address of the abandon vectors (m/44'/195'/0'/0/2). */
const DEPOSIT = 'TYJPRrdB5APNeRs4R7fYZSwW3TcrTKw2gx';
const OUTSIDER = 'TSiXa4Yv9kwqZaw71fvMjLd5QcrQRzJdhc';

export function tronChainConformance(name: string, make: () => Promise<TronChainSubject>): void {
  describe(`TronChain conformance: ${name}`, () => {
    let subject: TronChainSubject | undefined;
    const chain = (): TronChain => subject!.chain;
    const control = (): MemoryTronChain => subject!.control;
    beforeAll(async () => {
      subject = await make();
      control().mint(HOT_ADDRESS, 1_000_000_000n);
      control().mint(OUTSIDER, 1_000_000_000n);
    });
    afterAll(async () => {
      await subject?.cleanup();
    });

    it('shows the full node’s head for TAPOS and the solidified head only as far as it is solidified', async () => {
      const before = await chain().solidHead();
      const mined = control().mineBlock();
      expect(await chain().referenceBlock()).toEqual(mined);
      expect(mined.number).toBe(before.number + 1);
      expect(mined.id).toMatch(/^[0-9a-f]{64}$/);
      expect(mined.timestampMs).toBeGreaterThan(before.timestampMs);
      expect(await chain().solidHead()).toEqual(before);
      control().solidify();
      expect(await chain().solidHead()).toEqual(mined);
    });

    it('pools a signed transfer, lands it in a block, and reports it as solidified only after solidify()', async () => {
      const transfer = signedTransfer({
        to: OTHER_ADDRESS,
        amount: 2_500_000n,
        reference: await chain().referenceBlock(),
      });
      expect(await chain().broadcastHex(transfer.hex)).toEqual({ kind: 'accepted', txid: transfer.txid });
      expect(await chain().transactionInfo(transfer.txid, { solid: false })).toEqual({ kind: 'absent' });
      const block = control().mineBlock();
      const landed = { kind: 'in_block', status: 'SUCCESS', receiptResult: 'SUCCESS', blockNumber: block.number };
      expect(await chain().transactionInfo(transfer.txid, { solid: false })).toMatchObject(landed);
      expect(await chain().transactionInfo(transfer.txid, { solid: true })).toEqual({ kind: 'absent' });
      expect(await chain().trc20TransfersInBlock(block.number, USDT)).toEqual([]);
      expect(await chain().trc20Balance(OTHER_ADDRESS, USDT, { solid: false })).toBe(2_500_000n);
      expect(await chain().trc20Balance(OTHER_ADDRESS, USDT, { solid: true })).toBe(0n);
      control().solidify();
      expect(await chain().transactionInfo(transfer.txid, { solid: true })).toMatchObject({
        ...landed,
        blockTimeMs: block.timestampMs,
      });
      expect(await chain().trc20TransfersInBlock(block.number, USDT)).toEqual([
        {
          txid: transfer.txid,
          logIndex: 0,
          from: HOT_ADDRESS,
          to: OTHER_ADDRESS,
          amount: 2_500_000n,
          blockNumber: block.number,
          blockTimeMs: block.timestampMs,
        },
      ]);
      expect(await chain().trc20Balance(OTHER_ADDRESS, USDT, { solid: true })).toBe(2_500_000n);
      expect(await chain().trc20Balance(HOT_ADDRESS, USDT, { solid: true })).toBe(1_000_000_000n - 2_500_000n);
      // The same bytes again (recovery after a lost answer, 5.3): the node knows them.
      expect(await chain().broadcastHex(transfer.hex)).toEqual({ kind: 'duplicate', txid: transfer.txid });
    });

    it('refuses a tampered signature, another signer, a stale or unknown ref block, and expired transactions', async () => {
      const reference = await chain().referenceBlock();
      const refuse = async (hex: string, code: string) =>
        expect(await chain().broadcastHex(hex)).toMatchObject({ kind: 'rejected', code });
      await refuse(signedTransfer({ to: DEPOSIT, amount: 1n, reference, tamper: true }).hex, 'SIGERROR');
      await refuse(
        signedTransfer({ to: DEPOSIT, amount: 1n, reference, key: OTHER_KEY, owner: HOT_ADDRESS }).hex,
        'SIGERROR',
      );
      await refuse(
        signedTransfer({ to: DEPOSIT, amount: 1n, reference, refBlockHash: '0123456789abcdef' }).hex,
        'TAPOS_ERROR',
      );
      await refuse(
        signedTransfer({ to: DEPOSIT, amount: 1n, reference, lifetimeMs: 25 * 3600_000 }).hex,
        'TRANSACTION_EXPIRATION_ERROR',
      );
      await refuse(
        signedTransfer({ to: DEPOSIT, amount: 1n, reference, contract: FAKE_TOKEN }).hex,
        'CONTRACT_VALIDATE_ERROR',
      );
      const expiring = signedTransfer({ to: DEPOSIT, amount: 1n, reference, lifetimeMs: 9_000 });
      control().mineBlocks(3); // the next block's slot is now past its expiration
      await refuse(expiring.hex, 'TRANSACTION_EXPIRATION_ERROR');
      // java-tron keeps 65,536 recent blocks for TAPOS: a block older than that is no longer a reference.
      const stale = await chain().referenceBlock();
      const head = control().mineBlocks(65_536);
      const late = { ...stale, timestampMs: head.timestampMs };
      await refuse(signedTransfer({ to: DEPOSIT, amount: 1n, reference: late }).hex, 'TAPOS_ERROR');
      expect(await chain().trc20Balance(DEPOSIT, USDT, { solid: false })).toBe(0n);
    });

    it('reads only SUCCESS Transfer logs of exactly the asked contract, with each log’s index in its transaction', async () => {
      const usdt = (to: string, amount: bigint) => ({ contract: USDT, from: OUTSIDER, to, amount });
      const batch = control().addTransfers([
        usdt(DEPOSIT, 7n),
        { ...usdt(DEPOSIT, 5n), contract: FAKE_TOKEN },
        usdt(HOT_ADDRESS, 3n),
      ]);
      const fake = control().addTransfers([{ ...usdt(DEPOSIT, 900n), contract: FAKE_TOKEN }]);
      const zero = control().addTransfers([usdt(DEPOSIT, 0n)]);
      const reverted = control().addTransfers([usdt(DEPOSIT, 11n)], 'REVERT');
      const block = control().mineBlock();
      control().solidify();
      const at = { blockNumber: block.number, blockTimeMs: block.timestampMs, from: OUTSIDER };
      expect(await chain().trc20TransfersInBlock(block.number, USDT)).toEqual([
        { txid: batch, logIndex: 0, to: DEPOSIT, amount: 7n, ...at },
        { txid: batch, logIndex: 2, to: HOT_ADDRESS, amount: 3n, ...at },
        { txid: zero, logIndex: 0, to: DEPOSIT, amount: 0n, ...at },
      ]);
      expect(await chain().trc20TransfersInBlock(block.number, FAKE_TOKEN)).toEqual([
        { txid: batch, logIndex: 1, to: DEPOSIT, amount: 5n, ...at },
        { txid: fake, logIndex: 0, to: DEPOSIT, amount: 900n, ...at },
      ]);
      expect(await chain().transactionInfo(reverted, { solid: true })).toMatchObject({
        status: 'FAILED',
        receiptResult: 'REVERT',
      });
      expect(await chain().trc20Balance(DEPOSIT, USDT, { solid: true })).toBe(7n);
      expect(await chain().trc20TransfersInBlock(block.number + 1, USDT)).toEqual([]);
    });

    it('reports a transfer its sender cannot cover as FAILED with REVERT, fee burned, nothing moved', async () => {
      const transfer = signedTransfer({ to: DEPOSIT, amount: 10n ** 15n, reference: await chain().referenceBlock() });
      expect(await chain().broadcastHex(transfer.hex)).toMatchObject({ kind: 'accepted' });
      const block = control().mineBlock();
      control().solidify();
      expect(await chain().transactionInfo(transfer.txid, { solid: true })).toEqual({
        kind: 'in_block',
        status: 'FAILED',
        receiptResult: 'REVERT',
        blockNumber: block.number,
        blockTimeMs: block.timestampMs,
        feeSun: control().callFeeSun,
      });
      expect(await chain().trc20TransfersInBlock(block.number, USDT)).toEqual([]);
    });

    it('lets the same bytes be pooled again after the node lost them, and never lands them twice', async () => {
      const transfer = signedTransfer({ to: DEPOSIT, amount: 4n, reference: await chain().referenceBlock() });
      await chain().broadcastHex(transfer.hex);
      expect(control().dropPending(transfer.txid)).toBe(true);
      control().mineBlock();
      expect(await chain().transactionInfo(transfer.txid, { solid: false })).toEqual({ kind: 'absent' });
      expect(await chain().broadcastHex(transfer.hex)).toEqual({ kind: 'accepted', txid: transfer.txid });
      control().mineBlock();
      expect(await chain().broadcastHex(transfer.hex)).toEqual({ kind: 'duplicate', txid: transfer.txid });
      expect(await chain().transactionInfo(transfer.txid, { solid: false })).toMatchObject({ status: 'SUCCESS' });
    });

    it('answers an unknown txid as absent; refuses bytes that are not a transaction and an unknown contract', async () => {
      expect(await chain().transactionInfo('ab'.repeat(32), { solid: true })).toEqual({ kind: 'absent' });
      await expect(chain().broadcastHex('zz')).rejects.toMatchObject({ kind: 'refused' });
      await expect(chain().broadcastHex('0a05ff')).rejects.toBeInstanceOf(TronNodeError);
      await expect(chain().trc20Balance(DEPOSIT, FAKE_TOKEN, { solid: true })).rejects.toMatchObject({
        kind: 'refused',
      });
    });
  });
}
