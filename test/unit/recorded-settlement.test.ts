/**
 * The record-then-post settlement shared by rentals and volumes (src/domain/market/settlements.ts): a settlement
 * another process recorded is posted, never overwritten, even when it appears while this one is clearing its own.
 */
import { describe, expect, it } from 'vitest';
import { providerShare, type Settleable, settleRecorded } from '../../src/domain/market/settlements.js';

interface Row extends Settleable {
  version: number;
}

/** One record behind compare-and-set; `interfere` runs once, just before the first clear, as a concurrent process. */
function harness(start: Row, owed: bigint, interfere: (row: Row) => Row) {
  let row = { ...start };
  let interfered = false;
  const posted: string[] = [];
  const cas = (expected: number, patch: Partial<Row>): Row | null => {
    if (row.version !== expected) return null;
    row = { ...row, ...patch, version: row.version + 1 };
    return { ...row };
  };
  const steps = {
    what: 'test record',
    owed: () => owed,
    record: async (r: Row, seq: number, owedMicros: bigint, chargeMicros: bigint) =>
      cas(r.version, { settleSeq: seq, chargedMicros: owedMicros, pendingChargeMicros: chargeMicros }),
    post: async (r: Row) => {
      posted.push(`${r.settleSeq}:${r.pendingChargeMicros}`);
      return 0n;
    },
    clear: async (r: Row) => {
      if (!interfered) {
        interfered = true;
        row = interfere(row);
      }
      return cas(r.version, { pendingChargeMicros: 0n });
    },
    reread: async () => ({ ...row }),
  };
  return { steps, posted, row: () => row };
}

describe('settleRecorded', () => {
  it('posts a pending settlement first, then records and posts the rest', async () => {
    const h = harness({ version: 1, settleSeq: 2, chargedMicros: 8n, pendingChargeMicros: 5n }, 20n, (r) => r);
    const settled = await settleRecorded(h.row(), h.steps);
    expect(h.posted).toEqual(['2:5', '3:12']);
    expect(settled).toMatchObject({ settleSeq: 3, chargedMicros: 20n, pendingChargeMicros: 0n });
  });

  it('never records over a settlement another process recorded while this one cleared: it posts that one too', async () => {
    // Another process cleared settlement 2 and recorded 3 (7 more) just as this one went to clear 2.
    const h = harness({ version: 1, settleSeq: 2, chargedMicros: 8n, pendingChargeMicros: 5n }, 20n, (r) => ({
      ...r,
      version: r.version + 2,
      settleSeq: 3,
      chargedMicros: 15n,
      pendingChargeMicros: 7n,
    }));
    const settled = await settleRecorded(h.row(), h.steps);
    expect(h.posted).toEqual(['2:5', '3:7', '4:5']);
    expect(settled).toMatchObject({ settleSeq: 4, chargedMicros: 20n, pendingChargeMicros: 0n });
  });
});

describe('the provider’s share, with the fee taken on the running total (issue 23 item 10)', () => {
  it('adds up to the total less the fee on the total, however finely the charge is split', () => {
    for (const [feeBp, parts] of [
      [1_500, Array.from({ length: 42 }, () => 5n)],
      [1_500, [1n, 2n, 3n, 6n, 6n, 6n, 100n, 1n]],
      [333, Array.from({ length: 1000 }, (_, i) => BigInt(i % 7))],
    ] as const) {
      let before = 0n;
      let paid = 0n;
      for (const part of parts) {
        paid += providerShare(feeBp, before, part);
        before += part;
      }
      expect(paid).toBe(before - (before * BigInt(feeBp)) / 10_000n);
    }
  });
});
