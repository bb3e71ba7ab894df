import type { Knex } from 'knex';
import type { Database } from '../../db/connect.js';
import type { PortRange, TunnelRequest, TunnelStore } from './index.js';

type Row = Record<string, unknown>;
const ATTEMPTS = 8;

const requestOf = (r: Row): TunnelRequest => ({
  token: r.token as string,
  machineId: r.machine_id as string,
  instanceId: r.instance_id as string,
  tunnel: { host: r.tunnel_host as string, port: Number(r.tunnel_port) },
  createdAtMs: Number(r.created_at_ms),
});

/** The tunnel-store port over knex (migration 0013): a port's uniqueness is the primary key's, across processes. */
export class SqlTunnelStore implements TunnelStore {
  private readonly knex: Knex;
  private readonly postgres: boolean;

  constructor(db: Database) {
    this.knex = db.knex;
    this.postgres = db.kind === 'postgres';
  }

  /** The lowest free port, inserted; another process taking it first makes the insert fail, and the next is tried. */
  async allocate(instanceId: string, range: PortRange, nowMs: number): Promise<number | null> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const held = await this.portOf(instanceId);
      if (held !== null) return held;
      const used = new Set(
        ((await this.knex('ssh_ports').select('port').whereBetween('port', [range.first, range.last])) as Row[]).map(
          (r) => Number(r.port),
        ),
      );
      let port = range.first;
      while (port <= range.last && used.has(port)) port++;
      if (port > range.last) return null;
      // RETURNING lists only rows written: an insert that lost the port (or the instance's row) to another returns none.
      const inserted = (await this.knex('ssh_ports')
        .insert({ port, instance_id: instanceId, allocated_at_ms: nowMs })
        .onConflict()
        .ignore()
        .returning('port')) as unknown[];
      if (inserted.length > 0) return port;
    }
    return this.portOf(instanceId);
  }

  async portOf(instanceId: string): Promise<number | null> {
    const row = (await this.knex('ssh_ports').where({ instance_id: instanceId }).first()) as Row | undefined;
    return row === undefined ? null : Number(row.port);
  }

  async release(instanceId: string): Promise<void> {
    await this.knex('ssh_ports').where({ instance_id: instanceId }).delete();
  }

  async ports(): Promise<{ port: number; instanceId: string }[]> {
    const rows = (await this.knex('ssh_ports').select('port', 'instance_id').orderBy('port')) as Row[];
    return rows.map((r) => ({ port: Number(r.port), instanceId: r.instance_id as string }));
  }

  async request(request: TunnelRequest): Promise<void> {
    await this.knex('tunnel_requests').insert({
      token: request.token,
      machine_id: request.machineId,
      instance_id: request.instanceId,
      tunnel_host: request.tunnel.host,
      tunnel_port: request.tunnel.port,
      created_at_ms: request.createdAtMs,
    });
  }

  /** Deleting what it returns makes each request go to one caller, even with two agents' calls at once. */
  async claim(machineId: string, sinceMs: number): Promise<TunnelRequest[]> {
    if (this.postgres) {
      const { rows } = (await this.knex.raw(
        'DELETE FROM tunnel_requests WHERE machine_id = ? AND created_at_ms >= ? RETURNING *',
        [machineId, sinceMs],
      )) as { rows: Row[] };
      return rows.map(requestOf).sort((a, b) => a.createdAtMs - b.createdAtMs);
    }
    return this.knex.transaction(async (trx) => {
      const rows = (await trx('tunnel_requests')
        .where({ machine_id: machineId })
        .where('created_at_ms', '>=', sinceMs)
        .orderBy('created_at_ms')) as Row[];
      if (rows.length > 0)
        await trx('tunnel_requests')
          .whereIn(
            'token',
            rows.map((r) => r.token as string),
          )
          .delete();
      return rows.map(requestOf);
    });
  }

  async expire(beforeMs: number): Promise<number> {
    return this.knex('tunnel_requests').where('created_at_ms', '<', beforeMs).delete();
  }
}
