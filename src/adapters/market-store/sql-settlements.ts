import type { Knex } from 'knex';
import type { SettlementWrite } from './index.js';

/**
 * Writes a settlement of what `subject` names (its column and id) in the caller's transaction: a recorded one is a
 * new row; a posted one gets the provider's share.
 */
export async function writeSettlement(
  trx: Knex.Transaction,
  table: string,
  subject: Record<string, string | number>,
  settlement: SettlementWrite | undefined,
): Promise<void> {
  if (settlement === undefined) return;
  if ('posted' in settlement) {
    await trx(table)
      .where({ ...subject, seq: settlement.posted.seq })
      .update({ provider_micros: settlement.posted.providerMicros.toString() });
    return;
  }
  const r = settlement.recorded;
  await trx(table).insert({
    ...subject,
    seq: r.seq,
    machine_id: r.machineId,
    provider_account_id: r.providerAccountId,
    charged_micros: r.chargedMicros.toString(),
    provider_micros: r.providerMicros?.toString() ?? null,
    at_ms: r.atMs,
  });
}
