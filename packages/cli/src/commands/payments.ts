/**
 * `deposit` and `withdraw` (DESIGN.md 11, SPEC 1.10): money in and out. A card or SBP deposit answers a checkout
 * link to open in a browser; a USDT (TRC20) deposit answers an address of the account's own, printed with a
 * terminal QR code for a phone wallet. Withdrawals go to an address saved beforehand (it matures before use).
 */
import {
  createDeposit,
  createWithdrawal,
  type Deposit,
  getDeposit,
  listDeposits,
  listWithdrawalAddresses,
  listWithdrawals,
  type Withdrawal,
} from '@compute-gateway/sdk';
import { type Command, Option } from 'commander';
import { renderUnicodeCompact } from 'uqr';
import { context, numberOption } from '../context.js';
import { UsageError } from '../errors.js';
import { printJson, printLine, printRecord, printTable, usd, when } from '../output.js';

interface DepositOptions {
  method: 'card' | 'sbp' | 'usdt';
  amount?: number;
  rub?: number;
  qr: boolean;
}

function printDeposit(deposit: Deposit, qr: boolean): void {
  printRecord([
    ['deposit', deposit.deposit_id],
    ['method', deposit.method],
    ['status', deposit.status],
    ['amount', deposit.amount_usd === null ? `${deposit.amount_rub ?? '-'} RUB` : usd(deposit.amount_usd)],
    ['credited', usd(deposit.credited_usd)],
    ['created', when(deposit.created_at)],
  ]);
  if (deposit.checkout_url !== null) printLine(`Pay here: ${deposit.checkout_url}`);
  if (deposit.address !== null) {
    printLine(`Send USDT (TRC20, the TRON network only) to: ${deposit.address}`);
    if (qr) printLine(renderUnicodeCompact(deposit.address, { border: 1 }));
  }
}

async function deposit(options: DepositOptions, command: Command): Promise<void> {
  const ctx = await context(command);
  const method = options.method === 'usdt' ? 'usdt_trc20' : options.method;
  if (method !== 'usdt_trc20' && options.amount === undefined && options.rub === undefined) {
    throw new UsageError(`a ${method} deposit needs --amount <usd> (or --rub <rubles> for sbp)`);
  }
  const body = {
    method,
    ...(options.amount === undefined ? {} : { amount_usd: options.amount }),
    ...(options.rub === undefined ? {} : { amount_rub: options.rub }),
  } as const;
  const { data } = await ctx.gateway.call(createDeposit, { body });
  if (ctx.json) return printJson(data);
  printDeposit(data, options.qr);
}

async function depositList(_options: unknown, command: Command): Promise<void> {
  const ctx = await context(command);
  const { data } = await ctx.gateway.call(listDeposits);
  if (ctx.json) return printJson(data);
  printTable(
    ['deposit', 'method', 'status', 'amount', 'credited', 'created'],
    data.deposits.map((d) => [
      d.deposit_id,
      d.method,
      d.status,
      d.amount_usd === null ? `${d.amount_rub ?? '-'} RUB` : usd(d.amount_usd),
      usd(d.credited_usd),
      when(d.created_at),
    ]),
    'no deposits',
  );
}

async function depositShow(id: string, _options: unknown, command: Command): Promise<void> {
  const ctx = await context(command);
  const { data } = await ctx.gateway.call(getDeposit, { path: { deposit_id: id } });
  if (ctx.json) return printJson(data);
  // --no-qr is `deposit`'s: commander gives a parent's option to the parent wherever it stands on the line.
  printDeposit(data, command.parent?.opts().qr !== false);
}

const withdrawalRow = (w: Withdrawal) => [
  w.withdrawal_id,
  w.status,
  usd(w.amount_usd),
  usd(w.fee_usd),
  w.address,
  w.tx_id,
  when(w.created_at),
];
const WITHDRAWAL_HEAD = ['withdrawal', 'status', 'amount', 'fee', 'to', 'tx', 'created'];

async function withdraw(options: { to: string; amount: number; totp?: string }, command: Command): Promise<void> {
  const ctx = await context(command);
  const body = { address_id: options.to, amount_usd: options.amount, ...(options.totp ? { totp: options.totp } : {}) };
  const { data } = await ctx.gateway.call(createWithdrawal, { body });
  if (ctx.json) return printJson(data);
  printTable(WITHDRAWAL_HEAD, [withdrawalRow(data)]);
}

async function withdrawList(_options: unknown, command: Command): Promise<void> {
  const ctx = await context(command);
  const { data } = await ctx.gateway.call(listWithdrawals);
  if (ctx.json) return printJson(data);
  printTable(WITHDRAWAL_HEAD, data.withdrawals.map(withdrawalRow), 'no withdrawals');
  printLine(`withdrawable now ${usd(data.withdrawable_usd)}, maturing ${usd(data.maturing_usd)}`);
}

async function addresses(_options: unknown, command: Command): Promise<void> {
  const ctx = await context(command);
  const { data } = await ctx.gateway.call(listWithdrawalAddresses);
  if (ctx.json) return printJson(data);
  printTable(
    ['address id', 'address', 'label', 'usable from'],
    data.addresses.map((a) => [a.address_id, a.address, a.label, when(a.usable_from)]),
    'no saved addresses',
  );
}

export function registerPayments(root: Command): void {
  const dep = root
    .command('deposit')
    .description('add money: a checkout link (card, sbp) or a USDT TRC20 address with a QR code')
    .addOption(new Option('--method <method>', 'how to pay').choices(['card', 'sbp', 'usdt']).default('card'))
    .option('--amount <usd>', 'how much, in USD', numberOption('--amount'))
    .option('--rub <rubles>', 'how much, in rubles (sbp)', numberOption('--rub'))
    .option('--no-qr', 'print the address without the QR code')
    .action(deposit);
  dep.command('list').description('your deposits').action(depositList);
  dep.command('show <id>').description('one deposit').action(depositShow);
  const out = root
    .command('withdraw')
    .description('send earnings to a saved USDT TRC20 address')
    .option('--to <address_id>', 'the saved address (see `cgw withdraw addresses`)')
    .option('--amount <usd>', 'how much, in USD', numberOption('--amount'))
    .option('--totp <code>', "the authenticator app's code (withdrawals need a second factor)")
    .action(async (options, command: Command) => {
      if (options.to === undefined || options.amount === undefined) {
        throw new UsageError('withdraw needs --to <address_id> and --amount <usd>; `cgw withdraw list` shows them');
      }
      await withdraw(options, command);
    });
  out.command('list').description('your withdrawals and what can be withdrawn now').action(withdrawList);
  // Saving or removing an address takes a signed-in session (docs/payments.md), which an API key is not.
  out.command('addresses').description('saved withdrawal addresses (added on the dashboard)').action(addresses);
}
