/**
 * A provider's earnings by machine and UTC day (SPEC 1.6; research/marketplace.md: Vast's machine earnings): every
 * posted settlement of the provider's machines, what the renter was charged and the provider's share of it.
 */
import type { MarketStore } from '../../adapters/market-store/index.js';
import { addDays, dayStartMs, utcDay } from '../../lib/utc-days.js';
import type { Principal } from '../keys/authenticator.js';

export interface EarningsRow {
  date: string;
  machineId: string;
  chargedMicros: bigint;
  earnedMicros: bigint;
  settlements: number;
}

export async function earningsByMachineAndDay(
  store: MarketStore,
  principal: Principal,
  range: { from: string; to: string },
): Promise<EarningsRow[]> {
  const settled = await store.providerSettlements(
    principal.accountId,
    dayStartMs(range.from),
    dayStartMs(addDays(range.to, 1)),
  );
  const rows = new Map<string, EarningsRow>();
  for (const s of settled) {
    const date = utcDay(s.atMs);
    const key = `${date}/${s.machineId}`;
    const row = rows.get(key) ?? { date, machineId: s.machineId, chargedMicros: 0n, earnedMicros: 0n, settlements: 0 };
    row.chargedMicros += s.chargedMicros;
    row.earnedMicros += s.providerMicros ?? 0n;
    row.settlements++;
    rows.set(key, row);
  }
  return [...rows.values()].sort((a, b) => a.date.localeCompare(b.date) || a.machineId.localeCompare(b.machineId));
}
