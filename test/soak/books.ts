/**
 * Ledger = usage at the end of the soak (docs/money.md): once the load has stopped and the account holds nothing
 * (leases given back once idle, every hold settled), what the ledger posted as spend is the sum of the usage lines to
 * the micro-dollar, and so is what left the balance; every answer and every completed job has exactly one usage line
 * and there is none for anything else; no charge went past its hold; the books balance.
 */
import { openLedger } from '../../src/adapters/ledger/open.js';
import type { Database } from '../../src/db/connect.js';
import { accountLedger } from '../setup/gateway-fleet.js';
import { pollUntil } from '../setup/polling.js';

export interface Books {
  /** Each check and whether it held. */
  checks: { name: string; pass: boolean; detail: string }[];
  usageLines: number;
  usageMicros: bigint;
  postedSpendMicros: bigint;
}

const usd = (micros: bigint) => `$${(Number(micros) / 1e6).toFixed(6)}`;

/**
 * Waits (up to `settleWithinMs`) until nothing is held and there are as many usage lines as billable answers (a charge
 * and its line are group-committed a moment after the answer), then reads the account's books and checks them.
 */
export async function checkBooks(
  db: Database,
  accountId: string,
  openingMicros: bigint,
  billable: Set<string>,
  failedIds: Set<string>,
  settleWithinMs = 60_000,
): Promise<Books> {
  const book = accountLedger(db, accountId);
  const { balance } = await pollUntil(
    async () => ({ balance: await book.balance(), lines: await usageLineCount(db, accountId) }),
    (now) => now.balance.heldMicros === 0n && now.lines >= billable.size,
    { withinMs: settleWithinMs, everyMs: 500 },
  );
  const ledger = openLedger(db);
  const lines = await book.usageLines();
  const usageMicros = lines.reduce((sum, l) => sum + l.costMicros, 0n);
  const postedSpendMicros = await ledger.postedSpend(accountId);
  const ids = lines.map((l) => l.requestId);
  const distinct = new Set(ids);
  const missing = [...billable].filter((id) => !distinct.has(id));
  const unexpected = [...distinct].filter((id) => !billable.has(id) && !failedIds.has(id));
  const lateOrLoss = await book.lossesAndLateCharges();
  const sumOfAll = await ledger.sumOfAllBalances();
  const checks = [
    { name: 'nothing held at the end', pass: balance.heldMicros === 0n, detail: `held ${usd(balance.heldMicros)}` },
    {
      name: 'posted spend = sum of usage lines',
      pass: postedSpendMicros === usageMicros,
      detail: `${usd(postedSpendMicros)} posted, ${usd(usageMicros)} in ${lines.length} usage lines`,
    },
    {
      name: 'opening − available = sum of usage lines',
      pass: openingMicros - balance.availableMicros === usageMicros,
      detail: `${usd(openingMicros - balance.availableMicros)} left the balance`,
    },
    {
      name: 'every 200 and completed job has one usage line, no other line',
      pass: missing.length === 0 && unexpected.length === 0 && distinct.size === ids.length,
      detail:
        `${billable.size} answered, ${lines.length} lines; ${missing.length} missing, ${unexpected.length} unexpected, ` +
        `${ids.length - distinct.size} duplicated`,
    },
    { name: 'no late or loss charges', pass: lateOrLoss.length === 0, detail: `${lateOrLoss.length} found` },
    { name: 'sum of all balances is 0', pass: sumOfAll === 0n, detail: usd(sumOfAll) },
  ];
  return { checks, usageLines: lines.length, usageMicros, postedSpendMicros };
}

async function usageLineCount(db: Database, accountId: string): Promise<number> {
  const [row] = (await db.knex('usage_records').where({ account_id: accountId }).count({ n: '*' })) as { n: unknown }[];
  return Number(row?.n ?? 0);
}
