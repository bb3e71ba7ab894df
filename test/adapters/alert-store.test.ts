import { MemoryAlertStore } from '../../src/adapters/alert-store/memory.js';
import { SqlAlertStore } from '../../src/adapters/alert-store/sql.js';
import { SqlMarketStore } from '../../src/adapters/market-store/sql.js';
import type { Database } from '../../src/db/connect.js';
import { postgresSchema, sqliteMemory } from '../setup/databases.js';
import { alertStoreConformance, type EventSource, type Rental } from './alert-store.conformance.js';
import { instance, machine } from './market-store.conformance.js';

/** The market store itself writes the events, as in production: the alert store only reads them. */
function marketEvents(db: Database): EventSource {
  const market = new SqlMarketStore(db);
  return {
    async place(r: Rental, atMs: number) {
      const m = machine({ id: r.machineId, gpuName: r.gpuName, gpuCount: r.gpuCount });
      await market.addMachine(m);
      const placed = await market.place(
        instance(m, { id: r.id, accountId: r.accountId, gpuCount: r.gpuCount, createdAtMs: atMs, updatedAtMs: atMs }),
      );
      if (!placed.ok) throw new Error('GPUs taken');
    },
    async change(id, status, reason, atMs) {
      const current = (await market.getInstance(id))!;
      const desiredStatus = status === 'stopped' || status === 'terminated' ? status : 'running';
      const changed = await market.change(id, current.version, {
        patch: { status, statusReason: reason, desiredStatus, updatedAtMs: atMs },
      });
      if (!changed.ok) throw new Error(changed.reason);
    },
    unplace: (id) => market.unplace(id),
  };
}

alertStoreConformance('memory', async () => {
  const store = new MemoryAlertStore();
  const rentals = new Map<string, Rental>();
  const events: EventSource = {
    async place(r, atMs) {
      rentals.set(r.id, r);
      store.record({
        instanceId: r.id,
        accountId: r.accountId,
        gpuName: r.gpuName,
        gpuCount: r.gpuCount,
        machineId: r.machineId,
        status: 'pending',
        reason: null,
        atMs,
      });
    },
    async change(id, status, reason, atMs) {
      const r = rentals.get(id)!;
      store.record({
        instanceId: id,
        accountId: r.accountId,
        gpuName: r.gpuName,
        gpuCount: r.gpuCount,
        machineId: r.machineId,
        status,
        reason,
        atMs,
      });
    },
    async unplace(id) {
      store.removeInstance(id);
    },
  };
  return { store, events, commitsInOrder: true, cleanup: async () => {} };
});

alertStoreConformance('sqlite', async () => {
  const db = await sqliteMemory();
  return {
    store: new SqlAlertStore(db),
    events: marketEvents(db),
    commitsInOrder: true,
    cleanup: () => db.knex.destroy(),
  };
});

alertStoreConformance('postgres', async () => {
  const { db, drop } = await postgresSchema();
  return { store: new SqlAlertStore(db), events: marketEvents(db), commitsInOrder: false, cleanup: drop };
});
