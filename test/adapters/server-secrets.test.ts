import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerSecrets } from '../../src/adapters/server-secrets/index.js';
import { MemoryServerSecrets } from '../../src/adapters/server-secrets/memory.js';
import { SqlServerSecrets } from '../../src/adapters/server-secrets/sql.js';
import { postgresSchema, sqliteMemory } from '../setup/databases.js';

type Make = () => Promise<{ first: ServerSecrets; second: ServerSecrets; cleanup: () => Promise<void> }>;

/** Two handles on one store stand for two processes on one database. */
function conformance(name: string, make: Make): void {
  describe(`ServerSecrets conformance: ${name}`, () => {
    let subject: Awaited<ReturnType<Make>>;
    beforeAll(async () => {
      subject = await make();
    });
    afterAll(() => subject.cleanup());

    it('keeps the first value made and answers it to every later ask, whatever they propose', async () => {
      const value = await subject.first.getOrCreate('links', () => 'first-value', 1);
      expect(value).toBe('first-value');
      expect(await subject.second.getOrCreate('links', () => 'second-value', 2)).toBe('first-value');
      expect(await subject.first.getOrCreate('other', () => 'other-value', 3)).toBe('other-value');
    });

    it('lets exactly one of many concurrent first asks win', async () => {
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          (i % 2 === 0 ? subject.first : subject.second).getOrCreate('raced', () => `value-${i}`, 4),
        ),
      );
      expect(new Set(answers).size).toBe(1);
    });
  });
}

conformance('memory', async () => {
  const store = new MemoryServerSecrets();
  return { first: store, second: store, cleanup: async () => {} };
});

conformance('sqlite', async () => {
  const db = await sqliteMemory();
  return { first: new SqlServerSecrets(db), second: new SqlServerSecrets(db), cleanup: () => db.knex.destroy() };
});

conformance('postgres', async () => {
  const { db, drop } = await postgresSchema();
  return { first: new SqlServerSecrets(db), second: new SqlServerSecrets(db), cleanup: drop };
});
