/**
 * "The balance must cover X" without a check-then-insert (src/domain/market/balance-cover.ts; issue 23 item 6), on
 * the memory ledger with every step of every creation delayed at random: however the steps of parallel creations
 * interleave, exactly as many resources are created as the balance covers, and no reservation is left held.
 */
import { describe, expect, it } from 'vitest';
import { memoryLedger } from '../../src/adapters/ledger/memory.js';
import { MemoryUsageLogStore } from '../../src/adapters/usage-log/memory.js';
import { insertCovered } from '../../src/domain/market/balance-cover.js';
import { ApiError } from '../../src/errors/api-error.js';
import { newId } from '../../src/lib/ids.js';
import { sleep } from '../setup/time.js';

const jitter = () => sleep(Math.random() * 3);

describe('insertCovered', () => {
  it.each([
    { balance: 5n, each: 3n, parallel: 20 },
    { balance: 10n, each: 3n, parallel: 20 },
    { balance: 100n, each: 7n, parallel: 30 },
    { balance: 2n, each: 3n, parallel: 10 },
  ])(
    '$parallel parallel creations of $each from a balance of $balance: ⌊balance / each⌋ created',
    async ({ balance, each, parallel }) => {
      const ledger = memoryLedger(new MemoryUsageLogStore());
      const accountId = newId('acc');
      await ledger.credit({
        id: newId('topup'),
        accountId,
        amountMicros: balance,
        lot: { currency: 'USD', fxRateRubMicro: 90_000_000n },
        nowMs: 0,
      });
      const created: number[] = [];
      const rule = {
        accountId,
        ownMicros: each,
        existingMicros: async () => {
          await jitter();
          return BigInt(created.length) * each;
        },
        refuse: () => new ApiError('insufficient_balance'),
      };
      const outcomes = await Promise.allSettled(
        Array.from({ length: parallel }, (_, i) =>
          insertCovered(
            ledger,
            () => 0,
            rule,
            async () => {
              await jitter();
              created.push(i);
            },
          ),
        ),
      );
      expect(created).toHaveLength(Number(balance / each));
      for (const refused of outcomes.filter((o) => o.status === 'rejected'))
        expect((refused.reason as ApiError).code).toBe('insufficient_balance');
      expect(await ledger.getBalance(accountId)).toEqual(
        expect.objectContaining({ availableMicros: balance, heldMicros: 0n }),
      );
    },
  );
});
