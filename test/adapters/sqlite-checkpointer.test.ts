/**
 * The WAL checkpointer (src/db/sqlite-checkpointer.ts): commits only append to the WAL (the request path's
 * connection checkpoints by itself only past its large backstop), and the worker thread copies them back into the
 * database file on its own connection.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectDatabase } from '../../src/db/connect.js';
import { startCheckpointer } from '../../src/db/sqlite-checkpointer.js';
import { sleep } from '../setup/time.js';

describe('the SQLite checkpoint worker', () => {
  it('copies committed pages from the WAL into the database file, off the committing connection, and stops', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cgw-checkpoint-'));
    const file = join(dir, 'db.sqlite');
    const db = connectDatabase(`sqlite:${file}`);
    try {
      await db.knex.raw('create table t (id integer primary key, text text not null)');
      const before = statSync(file).size;
      for (let i = 0; i < 20; i++)
        await db.knex('t').insert(Array.from({ length: 50 }, (_, j) => ({ text: `row ${i}-${j} `.repeat(20) })));
      expect(statSync(file).size).toBe(before); // everything is still in the WAL
      expect(statSync(`${file}-wal`).size).toBeGreaterThan(100_000);
      const failures: string[] = [];
      const checkpointer = startCheckpointer(file, 50, (failure) => failures.push(failure));
      for (let waited = 0; statSync(file).size === before && waited < 5_000; waited += 50) await sleep(50);
      await checkpointer.stop();
      expect(statSync(file).size).toBeGreaterThan(100_000);
      expect(failures).toEqual([]);
      expect(await db.knex('t').count({ n: '*' }).first()).toEqual({ n: 1000 });
    } finally {
      await db.knex.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
