/** What the billing tests share: both databases, a funded account as a request's principal, a world per test. */
import { pino } from 'pino';
import type { ApiKeyStore } from '../../src/adapters/api-keys/index.js';
import { SqlApiKeyStore } from '../../src/adapters/api-keys/sql.js';
import { MemoryChargeJournal } from '../../src/adapters/charge-journal/memory.js';
import { SqlKeyBudgetStore } from '../../src/adapters/key-budget/sql.js';
import type { Ledger } from '../../src/adapters/ledger/index.js';
import { openLedger } from '../../src/adapters/ledger/open.js';
import { SqlUsageLogStore } from '../../src/adapters/usage-log/sql.js';
import type { Database } from '../../src/db/connect.js';
import { createAccount, issueKey } from '../../src/domain/accounts/accounts.js';
import { Billing, type LossReport, type Reservation } from '../../src/domain/billing/billing.js';
import { KeyBudget } from '../../src/domain/billing/key-budget.js';
import { fxRateToMicro, usdToMicros } from '../../src/domain/billing/money.js';
import { topUp } from '../../src/domain/billing/top-up.js';
import type { Principal } from '../../src/domain/keys/authenticator.js';
import { newId } from '../../src/lib/ids.js';
import { postgresSchema, sqliteMemory } from './databases.js';
import { sleep } from './time.js';

export const BILLING_BACKENDS = [
  { name: 'SQLite', open: async () => ({ db: await sqliteMemory(), drop: async (db: Database) => db.knex.destroy() }) },
  {
    name: 'PostgreSQL',
    open: async () => {
      const pg = await postgresSchema();
      return { db: pg.db, drop: async () => pg.drop() };
    },
  },
];

const MARKET = fxRateToMicro(90);

/** Production's lease settings (src/domain/billing/billing-leases.ts, config defaults). */
export const LEASES = { maxMicros: 1_000_000n, ttlMs: 60_000, idleMs: 5_000 };

/** A new account topped up with `usd` (and each extra lot, at its rate), one lot per millisecond from `nowMs`. */
export async function fundedPrincipal(
  apiKeys: ApiKeyStore,
  ledger: Ledger,
  nowMs: number,
  usd: number,
  lots: { usd: number; fxRate?: number }[] = [],
  rubBilling = false,
): Promise<Principal> {
  const account = await createAccount(apiKeys, { email: `p${Math.random()}@example.com` });
  const { record } = await issueKey(apiKeys, account.id);
  const opening: { usd: number; fxRate?: number }[] = usd > 0 ? [{ usd }] : [];
  for (const [i, lot] of [...opening, ...lots].entries()) {
    await topUp(ledger, apiKeys, {
      accountId: account.id,
      usdMicros: usdToMicros(lot.usd),
      ...(lot.fxRate === undefined ? {} : { rub: { fxRateRubMicro: fxRateToMicro(lot.fxRate) } }),
      marketRateMicro: MARKET,
      nowMs: nowMs + i,
    });
  }
  return {
    accountId: account.id,
    keyId: record.id,
    account: { ...account, rubBilling },
    keyRateLimitPerMinute: null,
    managesKeys: true,
    sessionId: null,
    keySpendLimit: null,
  };
}

/** One test's billing world: a fresh database with its ledger, usage log and journal, and a clock the test moves. */
export interface BillingWorld {
  db: Database;
  apiKeys: SqlApiKeyStore;
  ledger: Ledger;
  usageLog: SqlUsageLogStore;
  journal: MemoryChargeJournal;
  losses: LossReport[];
  clock: { now: number };
  /** A Billing as one gateway process has it, over this world (`over`: the world's ledger, seen through a wrapper). */
  billing: (holdTtlMs: number, over?: Ledger) => Billing;
  /** A funded account (fundedPrincipal), the clock moved past its top-ups. */
  principal: (usd: number, lots?: { usd: number; fxRate?: number }[], rubBilling?: boolean) => Promise<Principal>;
  close: () => Promise<void>;
}

export async function openBillingWorld(
  backend: (typeof BILLING_BACKENDS)[number],
  startMs: number,
): Promise<BillingWorld> {
  const { db, drop } = await backend.open();
  const apiKeys = new SqlApiKeyStore(db);
  const ledger = openLedger(db);
  const journal = new MemoryChargeJournal();
  const losses: LossReport[] = [];
  const clock = { now: startMs };
  return {
    db,
    apiKeys,
    ledger,
    usageLog: new SqlUsageLogStore(db),
    journal,
    losses,
    clock,
    billing: (holdTtlMs, over = ledger) => {
      const now = () => clock.now;
      const logger = pino({ level: 'silent' });
      const keyBudget = new KeyBudget(new SqlKeyBudgetStore(db), { now, holdTtlMs, logger });
      return new Billing(over, {
        now,
        holdTtlMs,
        logger,
        journal,
        onLoss: (r) => losses.push(r),
        leases: LEASES,
        keyBudget,
      });
    },
    async principal(usd, lots = [], rubBilling = false) {
      const p = await fundedPrincipal(apiKeys, ledger, clock.now, usd, lots, rubBilling);
      clock.now += 1 + lots.length;
      return p;
    },
    close: () => drop(db).catch(() => undefined),
  };
}

/**
 * Reservations one after another until one comes from a lease (the account is then busy); each other one is settled
 * at 0. The lease opens in the background (a balance read, then its hold): on a loaded machine that can take longer
 * than a few reservations, so the wait is bounded by time, not by a count.
 */
export async function reserveUntilLeased(
  billing: Billing,
  ledger: Ledger,
  principal: Principal,
  amountMicros: bigint,
): Promise<Reservation> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const r = await billing.reserve(principal, newId('req'), amountMicros);
    if (r.lease !== null) return r;
    await billing.settle(r, 0n, { model: 'm', kind: 'chat', endpoint: '/x' });
    await ledger.drain();
    await sleep(5);
  }
  throw new Error('no lease within 20 s of reservations');
}
