/**
 * A provider's earnings summed by the database (SPEC 1.6): rentals settle every sweep, so a machine rented for a
 * year has some two million settlements, which neither the earnings report nor a withdrawal may read row by row.
 */
import type { Knex } from 'knex';
import { DAY_MS } from '../../lib/utc-days.js';
import type { EarningsGroup } from './index.js';
import { big, num, type Row } from './sql-rows.js';

/**
 * The start of a settlement's UTC day, by integer division. A literal, not a parameter: SQLite's driver binds a
 * JavaScript number as a float, which would make the division exact.
 */
const DAY_START = `(at_ms / ${DAY_MS}) * ${DAY_MS}`;

/** The provider's settlements of rentals and volumes that the ledger posted with a share for it, as one table. */
function paidTo(knex: Knex, providerAccountId: string, range: { fromMs?: number; toMs: number }) {
  const [rentals, volumes] = ['rental_settlements', 'volume_settlements'].map((table) => {
    const rows = knex(table)
      .select('machine_id', 'charged_micros', 'provider_micros', 'at_ms')
      .where({ provider_account_id: providerAccountId })
      .whereNotNull('provider_micros')
      .where('at_ms', '<', range.toMs);
    return range.fromMs === undefined ? rows : rows.where('at_ms', '>=', range.fromMs);
  });
  return knex.from(rentals!.unionAll(volumes!).as('paid'));
}

export async function earningsByDayAndMachine(
  knex: Knex,
  providerAccountId: string,
  fromMs: number,
  toMs: number,
): Promise<EarningsGroup[]> {
  const rows = (await paidTo(knex, providerAccountId, { fromMs, toMs })
    .select({ day_start_ms: knex.raw(DAY_START), machine_id: 'machine_id' })
    .sum({ charged: 'charged_micros', paid: 'provider_micros' })
    .count({ settlements: '*' })
    .groupByRaw('1, 2')) as Row[];
  return rows.map((r) => ({
    dayStartMs: num(r.day_start_ms),
    machineId: r.machine_id as string,
    chargedMicros: big(r.charged),
    providerMicros: big(r.paid),
    settlements: num(r.settlements),
  }));
}

export async function earnedBefore(knex: Knex, providerAccountId: string, beforeMs: number): Promise<bigint> {
  const [row] = (await paidTo(knex, providerAccountId, { toMs: beforeMs }).sum({ paid: 'provider_micros' })) as Row[];
  return row?.paid === null || row?.paid === undefined ? 0n : big(row.paid);
}
