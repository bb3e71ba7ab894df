import type { Trc20TransferEvent, TronChain } from '../../adapters/tron-chain/index.js';
import { newId } from '../../lib/ids.js';
import { topUp } from '../billing/top-up.js';
import { repayDebt } from './debts.js';
import type { PaymentsContext } from './payments-context.js';

/** The chain's name in the watcher's cursor. */
const CHAIN = 'tron';
/** Blocks read in one round at most, so a watcher catching up after downtime yields between rounds. */
const BLOCKS_PER_ROUND = 200;

export interface UsdtRail {
  chain: TronChain;
  /** The USDT contract whose transfers are credited (TRON_USDT_CONTRACT). */
  contract: string;
  /** The address at derivation index `i`: m/44'/195'/0'/0/i of TRON_XPUB (the service holds no seed). */
  address(index: number): string;
}

/**
 * One round of the USDT-TRC20 watcher (issue 27 item 3): reads the solidified blocks after the last one it finished,
 * in order, up to the solidified head, and credits every successful `Transfer` of the configured contract to an
 * address of ours; other tokens, zero values and addresses of no account are skipped. A block is finished only once
 * each of its transfers was credited, so a crash resumes at that block and the credits (keyed by txid and log index)
 * land once. A watcher's first round starts at the head: money sent before any address was handed out is not ours.
 */
export async function scanUsdtDeposits(ctx: PaymentsContext, rail: UsdtRail): Promise<void> {
  const head = (await rail.chain.solidHead()).number;
  const done = await ctx.deposits.cursor(CHAIN);
  if (done === null) return ctx.deposits.setCursor(CHAIN, head);
  const last = Math.min(head, done + BLOCKS_PER_ROUND);
  for (let block = done + 1; block <= last; block++) {
    for (const transfer of await rail.chain.trc20TransfersInBlock(block, rail.contract))
      if (transfer.amount > 0n) await creditTransfer(ctx, transfer);
    await ctx.deposits.setCursor(CHAIN, block);
  }
}

/** 1 USDT base unit (6 decimals) = 1 micro-USD; the deposit the account asked for takes it, or a new one records it. */
async function creditTransfer(ctx: PaymentsContext, transfer: Trc20TransferEvent): Promise<void> {
  const owner = await ctx.deposits.findAddress(transfer.to);
  if (owner === null) return;
  const { accountId } = owner;
  const processorRef = `${transfer.txid}:${transfer.logIndex}`;
  if ((await ctx.deposits.findByRef('tron', processorRef)) !== null) return;
  const nowMs = ctx.now();
  await topUp(ctx.ledger, ctx.apiKeys, {
    id: `dep:tron:${processorRef}`,
    accountId,
    usdMicros: transfer.amount,
    marketRateMicro: ctx.rubRateMicro,
    nowMs,
  });
  const credited = {
    transfer: { processorRef, txId: transfer.txid },
    creditedMicros: transfer.amount,
    amountMinor: transfer.amount,
    fxRateRubMicro: null,
    chargeRef: null,
    atMs: nowMs,
  };
  const awaiting = await ctx.deposits.oldestAwaiting(accountId);
  if (awaiting === null || !(await ctx.deposits.markCredited(awaiting.id, credited))) {
    const made = await ctx.deposits.create({
      id: newId('dep'),
      accountId,
      method: 'usdt_trc20',
      processor: 'tron',
      processorRef,
      status: 'awaiting_transfer',
      amountMinor: transfer.amount,
      currency: 'usdt',
      checkoutUrl: null,
      address: transfer.to,
      txId: transfer.txid,
      createdAtMs: nowMs,
    });
    if (made.ok) await ctx.deposits.markCredited(made.deposit.id, { ...credited, transfer: undefined });
  }
  await repayDebt(ctx, accountId, `tron:${processorRef}`);
}
