import type { Knex } from 'knex';
import type { Database } from '../../db/connect.js';
import type { InstanceStatus, StatusReason } from '../market-store/index.js';
import type { AlertCursor, AlertStore, AlertTarget, RentalEvent } from './index.js';

type Row = Record<string, unknown>;
const num = (v: unknown): number => Number(v);
/** The one row of `alert_cursor` (migration 0014). */
const CURSOR = 'rentals';

const cursorOf = (row: Row): AlertCursor => ({ lastEventId: num(row.last_event_id), attempts: num(row.attempts) });

function eventOf(r: Row): RentalEvent {
  const linked = r.messenger_chat_id !== null && r.messenger_chat_id !== undefined && Boolean(r.rentals_enabled);
  return {
    id: num(r.id),
    instanceId: r.instance_id as string,
    atMs: num(r.at_ms),
    status: r.status as InstanceStatus,
    reason: (r.reason ?? null) as StatusReason | null,
    previous:
      r.previous_status === null || r.previous_status === undefined
        ? null
        : { status: r.previous_status as InstanceStatus, reason: (r.previous_reason ?? null) as StatusReason | null },
    accountId: r.account_id as string,
    gpuName: r.gpu_name as string,
    gpuCount: num(r.gpu_count),
    machineId: r.machine_id as string,
    chatId: linked ? (r.messenger_chat_id as string) : null,
  };
}

/** The alert-store port over knex, on SQLite and PostgreSQL alike (migration 0014; reads 0011's rental tables). */
export class SqlAlertStore implements AlertStore {
  private readonly knex: Knex;
  readonly eventIdsCommitInOrder: boolean;

  constructor(db: Database) {
    this.knex = db.knex;
    this.eventIdsCommitInOrder = db.kind === 'sqlite';
  }

  async getTarget(accountId: string): Promise<AlertTarget | null> {
    const row = (await this.knex('alert_targets').where({ account_id: accountId }).first()) as Row | undefined;
    if (row === undefined) return null;
    return {
      accountId,
      messengerChatId: (row.messenger_chat_id ?? null) as string | null,
      rentalsEnabled: Boolean(row.rentals_enabled),
      updatedAtMs: num(row.updated_at_ms),
    };
  }

  async putTarget(target: AlertTarget): Promise<void> {
    const values = {
      messenger_chat_id: target.messengerChatId,
      rentals_enabled: target.rentalsEnabled,
      updated_at_ms: target.updatedAtMs,
    };
    await this.knex('alert_targets')
      .insert({ account_id: target.accountId, ...values })
      .onConflict('account_id')
      .merge(values);
  }

  /** Read-only over the market store's tables: each event with its rental, the event before it and the account's target. */
  async rentalEventsAfter(afterId: number, limit: number): Promise<RentalEvent[]> {
    const previous = (column: 'status' | 'reason') =>
      this.knex('instance_events as p')
        .select(`p.${column}`)
        .whereRaw('p.instance_id = e.instance_id and p.id < e.id')
        .orderBy('p.id', 'desc')
        .limit(1)
        .as(`previous_${column}`);
    const rows = (await this.knex('instance_events as e')
      .join('instances as i', 'i.id', 'e.instance_id')
      .leftJoin('alert_targets as t', 't.account_id', 'i.account_id')
      .select(
        'e.id',
        'e.instance_id',
        'e.at_ms',
        'e.status',
        'e.reason',
        'i.account_id',
        'i.gpu_name',
        'i.gpu_count',
        'i.machine_id',
        't.messenger_chat_id',
        't.rentals_enabled',
      )
      .select(previous('status'), previous('reason'))
      .where('e.id', '>', afterId)
      .orderBy('e.id')
      .limit(limit)) as Row[];
    return rows.map(eventOf);
  }

  async readCursor(): Promise<AlertCursor> {
    return cursorOf(await this.cursorRow());
  }

  async claimCursor(owner: string, nowMs: number, leaseMs: number): Promise<AlertCursor | null> {
    const row = await this.cursorRow();
    const held = row.claim_owner !== null && row.claim_owner !== owner && num(row.claim_until_ms) > nowMs;
    if (held || num(row.retry_at_ms) > nowMs) return null;
    const seen = cursorOf(row);
    // The compare-and-set: of the processes that read the same cursor, one moves the claim; the others match no row.
    const claimed = await this.knex('alert_cursor')
      .where({ name: CURSOR, last_event_id: seen.lastEventId, attempts: seen.attempts })
      .where(
        (w) => void w.whereNull('claim_owner').orWhere('claim_owner', owner).orWhere('claim_until_ms', '<=', nowMs),
      )
      .where('retry_at_ms', '<=', nowMs)
      .update({ claim_owner: owner, claim_until_ms: nowMs + leaseMs });
    return claimed > 0 ? seen : null;
  }

  async advanceCursor(owner: string, fromId: number, toId: number, nowMs: number, leaseMs: number): Promise<boolean> {
    const moved = await this.knex('alert_cursor')
      .where({ name: CURSOR, claim_owner: owner, last_event_id: fromId })
      .update({ last_event_id: toId, attempts: 0, retry_at_ms: 0, claim_until_ms: nowMs + leaseMs });
    return moved > 0;
  }

  async recordFailure(owner: string, atId: number, retryAtMs: number): Promise<boolean> {
    const counted = await this.knex('alert_cursor')
      .where({ name: CURSOR, claim_owner: owner, last_event_id: atId })
      .update({ attempts: this.knex.raw('attempts + 1'), retry_at_ms: retryAtMs });
    return counted > 0;
  }

  async releaseCursor(owner: string): Promise<void> {
    await this.knex('alert_cursor')
      .where({ name: CURSOR, claim_owner: owner })
      .update({ claim_owner: null, claim_until_ms: null });
  }

  private async cursorRow(): Promise<Row> {
    const row = (await this.knex('alert_cursor').where({ name: CURSOR }).first()) as Row | undefined;
    if (row === undefined) throw new Error('alert_cursor has no `rentals` row (migration 0014 seeds it)');
    return row;
  }
}
