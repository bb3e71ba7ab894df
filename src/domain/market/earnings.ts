/**
 * A provider's earnings by machine and UTC day (SPEC 1.6; research/marketplace.md: Vast's machine earnings): the
 * posted settlements of the provider's machines, summed by the store, what the renters were charged and the
 * provider's share of it.
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
  const groups = await store.providerEarnings(
    principal.accountId,
    dayStartMs(range.from),
    dayStartMs(addDays(range.to, 1)),
  );
  return groups
    .map((g) => ({
      date: utcDay(g.dayStartMs),
      machineId: g.machineId,
      chargedMicros: g.chargedMicros,
      earnedMicros: g.providerMicros,
      settlements: g.settlements,
    }))
    .sort((a, b) => a.date.localeCompare(b.date) || a.machineId.localeCompare(b.machineId));
}
