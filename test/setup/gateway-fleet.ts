/**
 * A scaled-out deployment (DESIGN.md 13) inside one test: N real gateway processes (`src/main.ts`, started as
 * server-process.ts starts one) on one PostgreSQL schema and one Redis, sharing what the backends of one load
 * balancer share (the file-link secret, the blob directory, a BullMQ prefix of this fleet's own), each with a charge
 * journal of its own; a round-robin client over the processes still alive, and kill -9 of one of them. And what the
 * shared database says of one account's money (balance, holds, usage lines, charges), read directly through the
 * ledger adapter and its tables, as the other multi-process suites read it.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { openLedger } from '../../src/adapters/ledger/open.js';
import type { Database } from '../../src/db/connect.js';
import { type PostgresSchema, postgresSchema, TEST_POSTGRES_URL } from './databases.js';
import { call, type JsonResponse } from './harness.js';
import { type ServerProcess, startServerProcess } from './server-process.js';
import { sleep } from './time.js';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** How long a stopped process may take to drain before it is killed. */
const STOP_LIMIT_MS = 20_000;

/** An answer and the process that gave it. */
export interface Served extends JsonResponse {
  /** The index of the process in the fleet. */
  server: number;
  /** `X-Request-ID`: the id the request's hold, charge and usage line carry. */
  requestId: string | null;
}

export interface FleetOptions {
  /** Settings of every process (beside those the fleet sets itself). */
  env?: Record<string, string>;
  /** Settings of one process only (e.g. a credential that tells the upstream fake which process called). */
  envOf?: (index: number) => Record<string, string>;
}

export class GatewayFleet {
  private turn = 0;
  private readonly dead = new Set<number>();

  private constructor(
    readonly servers: ServerProcess[],
    /** The DATABASE_URL every process runs on. */
    readonly databaseUrl: string,
    private readonly pg: PostgresSchema,
    private readonly dir: string,
    private readonly queuePrefix: string,
  ) {}

  /**
   * Starts `count` processes at once on a fresh, migrated PostgreSQL schema (so suites running side by side never
   * share rows) and a BullMQ prefix of their own (so they never take each other's jobs). The SSH proxy is off: the
   * processes of one host would contend for its ports, and no case here needs it.
   */
  static async start(count: number, options: FleetOptions = {}): Promise<GatewayFleet> {
    const pg = await postgresSchema();
    const dir = mkdtempSync(join(tmpdir(), 'cgw-fleet-'));
    const queuePrefix = `test-fleet-${process.pid}-${randomBytes(4).toString('hex')}`;
    const databaseUrl = `${TEST_POSTGRES_URL}?options=-c%20search_path%3D${pg.schema}`;
    const shared = {
      REDIS_URL: TEST_REDIS_URL,
      JOB_QUEUE_PREFIX: queuePrefix,
      FILE_LINK_SECRET: randomBytes(32).toString('hex'),
      BLOB_DIR: join(dir, 'files'),
      SSH_PROXY: 'off',
      ...options.env,
    };
    const started = await Promise.allSettled(
      Array.from({ length: count }, (_, i) =>
        startServerProcess(databaseUrl, {
          ...shared,
          CHARGE_JOURNAL_DIR: join(dir, `journal-${i}`),
          ...options.envOf?.(i),
        }),
      ),
    );
    const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
    const fleet = new GatewayFleet(servers, databaseUrl, pg, dir, queuePrefix);
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed !== undefined) {
      await fleet.close();
      throw failed.reason;
    }
    return fleet;
  }

  /** A connection of the test's own to the fleet's database (ledger, usage lines, jobs). */
  get db(): Database {
    return this.pg.db;
  }

  /** Indexes of the processes not killed. */
  get alive(): number[] {
    return this.servers.map((_, i) => i).filter((i) => !this.dead.has(i));
  }

  /** The next live process, round robin: where a load balancer would send the next request. */
  next(): number {
    const alive = this.alive;
    if (alive.length === 0) throw new Error('no gateway process alive');
    return alive[this.turn++ % alive.length]!;
  }

  /**
   * One request, answered in full (a stream read to its end), to `server` or to the next live process. Rejects when
   * the connection fails (a process killed under it).
   */
  async send(method: string, path: string, options: { key: string; body?: unknown; server?: number }): Promise<Served> {
    const server = options.server ?? this.next();
    const answer = await call(this.servers[server]!.baseUrl, method, path, {
      key: options.key,
      ...(options.body === undefined ? {} : { body: options.body }),
    });
    return { ...answer, server, requestId: answer.headers.get('x-request-id') };
  }

  /** kill -9: the process stops between any two instructions; resolves once it is gone. */
  async kill(index: number): Promise<void> {
    const { child } = this.servers[index]!;
    this.dead.add(index);
    const exited = child.exitCode !== null || child.signalCode !== null ? null : onceExited(child);
    child.kill('SIGKILL');
    await exited;
  }

  /** Stops every process left (SIGTERM, then SIGKILL if one hangs), drops the schema and this fleet's Redis keys. */
  async close(): Promise<void> {
    await Promise.all(
      this.servers.map(async ({ child }) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = onceExited(child);
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_LIMIT_MS);
        await exited.finally(() => clearTimeout(timer));
      }),
    );
    await this.pg.drop();
    const redis = new Redis(TEST_REDIS_URL);
    try {
      const match = `${this.queuePrefix}:*`;
      for await (const keys of redis.scanStream({ match, count: 500 }) as AsyncIterable<string[]>)
        if (keys.length > 0) await redis.del(...keys);
    } finally {
      await redis.quit();
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function onceExited(child: ServerProcess['child']): Promise<void> {
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export interface HoldRow {
  id: string;
  status: string;
  expiresAtMs: number;
}

/** The account's holds (requests', jobs', leases', rental cover checks'), as the ledger keeps them. */
export async function holdsOf(db: Database, accountId: string): Promise<HoldRow[]> {
  const rows = (await db
    .knex('ledger_transfers')
    .where({ account_id: accountId, kind: 'hold' })
    .select('id', 'status', 'expires_at_ms')) as { id: string; status: string; expires_at_ms: string | number }[];
  return rows.map((r) => ({ id: r.id, status: r.status, expiresAtMs: Number(r.expires_at_ms) }));
}

/** One account's money, read from the database the fleet shares. */
export function accountLedger(db: Database, accountId: string) {
  const ledger = openLedger(db);
  const balance = () => ledger.getBalance(accountId);
  return {
    balance,
    /** Reads the balance every 50 ms until stopped, keeping the lowest available and held seen. */
    sample(lowest: { available: bigint; held: bigint }) {
      let on = true;
      const running = (async () => {
        while (on) {
          const b = await balance();
          if (b.availableMicros < lowest.available) lowest.available = b.availableMicros;
          if (b.heldMicros < lowest.held) lowest.held = b.heldMicros;
          await sleep(50);
        }
      })();
      return { stop: () => ((on = false), running) };
    },
    async usageLines(): Promise<{ requestId: string; costMicros: bigint }[]> {
      const rows = (await db
        .knex('usage_records')
        .where({ account_id: accountId })
        .select('request_id', 'cost_micros')) as {
        request_id: string;
        cost_micros: string | number;
      }[];
      return rows.map((r) => ({ requestId: r.request_id, costMicros: BigInt(r.cost_micros) }));
    },
    /** Holds and charges named after these request ids (a hold, a capture from a lease, a late debit). */
    async transfersNamed(requestIds: string[]): Promise<string[]> {
      const ids = requestIds.flatMap((id) => [`hold:${id}`, `charge:${id}`, `late:${id}`]);
      return ((await db.knex('ledger_transfers').whereIn('id', ids).select('id')) as { id: string }[]).map((r) => r.id);
    },
    /**
     * Charges past a hold (`loss:`, the platform paying what the caller could not be charged) and charges after a
     * hold had expired (`late:`) of this account's calls; a rental's shortfall is its own rule (SPEC 4.5) and left out.
     */
    async lossesAndLateCharges(): Promise<string[]> {
      const ids = (await db.knex('ledger_transfers').select('id')).map((r: { id: string }) => r.id) as string[];
      const own = new Set(
        (await db.knex('ledger_transfers').where({ account_id: accountId }).select('id')).map(
          (r: { id: string }) => r.id,
        ),
      );
      return ids.filter(
        (id) => (own.has(id) && id.startsWith('late:')) || (own.has(id.slice(5)) && /^loss:(?!rental:)/.test(id)),
      );
    },
    async rentalSettlements(instanceId: string) {
      const rows: Record<string, any>[] = await db.knex('rental_settlements').where({ instance_id: instanceId });
      return rows.map((r) => ({
        seq: Number(r.seq),
        chargedMicros: BigInt(r.charged_micros),
        providerMicros: r.provider_micros === null ? null : BigInt(r.provider_micros),
      }));
    },
    /** The rental's charges as posted: one transfer per settlement (`rental:<id>:<n>`), with what each took. */
    async rentalPosted(instanceId: string) {
      const rows = (await db
        .knex('ledger_transfers')
        .where({ account_id: accountId })
        .where('id', 'like', `rental:${instanceId}:%`)
        .select('id', 'spend_micros')) as { id: string; spend_micros: string | number }[];
      return rows.map((r) => ({ id: r.id, spendMicros: BigInt(r.spend_micros) }));
    },
  };
}
