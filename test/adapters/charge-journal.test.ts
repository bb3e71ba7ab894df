import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileChargeJournal } from '../../src/adapters/charge-journal/file.js';
import { MemoryChargeJournal } from '../../src/adapters/charge-journal/memory.js';
import { chargeJournalConformance } from './charge-journal.conformance.js';

chargeJournalConformance('memory', async () => ({
  journal: new MemoryChargeJournal(),
  reopen: null,
  cleanup: async () => {},
}));

chargeJournalConformance('file', async () => {
  const root = mkdtempSync(join(tmpdir(), 'cgw-journal-'));
  const dir = join(root, 'pending'); // not there yet: the first record creates it
  return {
    journal: new FileChargeJournal(dir),
    reopen: () => new FileChargeJournal(dir),
    cleanup: async () => rmSync(root, { recursive: true, force: true }),
  };
});
