/**
 * The behavioural contract of the charge journal port (src/adapters/charge-journal/index.ts), run against the
 * memory twin and the file journal: one record per request, oldest first, replaced when recorded again, every
 * amount exact, gone once removed, and (where it is durable) still there for the next process.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChargeJournal, PendingCharge } from '../../src/adapters/charge-journal/index.js';
import { newId } from '../../src/lib/ids.js';
import { sleep } from '../setup/time.js';
import { line } from './ledger-fixtures.js';

export interface JournalUnderTest {
  journal: ChargeJournal;
  /** The same journal as a new process would open it; null for a journal that lives in one process only. */
  reopen: (() => ChargeJournal) | null;
  cleanup: () => Promise<void>;
}

function charge(over: Partial<PendingCharge> = {}): PendingCharge {
  const requestId = newId('req');
  return {
    requestId,
    holdId: `hold:${requestId}`,
    accountId: 'acc_journal',
    costMicros: 2n ** 60n + 7n, // beyond 2^53: a number on the way would round it
    usage: line({ requestId }),
    ...over,
  };
}

const tick = () => sleep(15); // distinct file times for the file journal

export function chargeJournalConformance(name: string, make: () => Promise<JournalUnderTest>): void {
  describe(`ChargeJournal conformance: ${name}`, () => {
    let subject: JournalUnderTest;
    beforeEach(async () => {
      subject = await make();
    });
    afterEach(async () => {
      await subject.cleanup();
    });

    it('lists what was recorded, oldest first, with every amount exact, a capture’s cap included', async () => {
      const first = charge();
      const second = charge({ holdId: 'lease:gw_1:1', capMicros: 9_000n });
      await subject.journal.put(first);
      await tick();
      await subject.journal.put(second);
      expect(await subject.journal.list()).toEqual([first, second]);
    });

    it('keeps one record per request: recording it again replaces it and makes it the newest', async () => {
      const a = charge();
      const b = charge();
      await subject.journal.put(a);
      await tick();
      await subject.journal.put(b);
      await tick();
      const again = { ...a, costMicros: 5n };
      await subject.journal.put(again);
      expect(await subject.journal.list()).toEqual([b, again]);
    });

    it('forgets a removed charge, and ignores one it never had', async () => {
      const a = charge();
      await subject.journal.put(a);
      await subject.journal.remove(a.requestId);
      await subject.journal.remove('req_never');
      expect(await subject.journal.list()).toEqual([]);
    });

    it('is still there for the next process, when it is durable', async () => {
      if (subject.reopen === null) return;
      const a = charge({ capMicros: 1n });
      await subject.journal.put(a);
      expect(await subject.reopen().list()).toEqual([a]);
    });
  });
}
