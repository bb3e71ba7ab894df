/**
 * What every ledger function is written with (ledger-functions.sql.ts): the two kinds of function, the one INSERT of
 * a transfer row, and the answers several operations share.
 */

/**
 * An inner function: it runs under its caller's search_path. A SET clause on every function would save and
 * restore the setting on each call, which costs more than most of these functions do.
 */
export const fn = (signature: string, returns: string, body: string, volatility = '') =>
  `CREATE OR REPLACE FUNCTION ${signature} RETURNS ${returns} LANGUAGE plpgsql ${volatility} AS $fn$\n${body}\n$fn$;`;

/**
 * An entry point: bound to the schema it was created in (`SET search_path FROM CURRENT`), which its callees inherit.
 * Its statements and its callees' run on generic plans: each reaches its rows by key, so a plan made for one set of
 * values serves all, and PostgreSQL would otherwise plan several of them again on every call, judging a custom plan
 * cheaper for `= ANY (array)` and jsonb inputs (about a tenth of a batch's time).
 */
export const entry = (signature: string, returns: string, body: string) =>
  `CREATE OR REPLACE FUNCTION ${signature} RETURNS ${returns} LANGUAGE plpgsql SET search_path FROM CURRENT
  SET plan_cache_mode = force_generic_plan AS $fn$\n${body}\n$fn$;`;

/** The columns a new transfer row names, in order; `hold_id` only a capture's (README.md "Captures"). */
const TRANSFER_COLUMNS = [
  'id',
  'account_id',
  'kind',
  'status',
  'amount_micros',
  'posted_micros',
  'refunded_micros',
  'spend_micros',
  'refund_of',
  'hold_id',
  'memo',
  'created_at_ms',
  'expires_at_ms',
  'resolved_at_ms',
  'posted_at_ms',
] as const;

type TransferColumn = (typeof TRANSFER_COLUMNS)[number];
type NewTransfer = Record<Exclude<TransferColumn, keyof typeof NEW_TRANSFER_DEFAULTS | 'hold_id'>, string> &
  Partial<Record<TransferColumn, string>>;

/** What a new row holds unless said otherwise: nothing refunded, refunding, expiring or resolved yet. */
const NEW_TRANSFER_DEFAULTS = {
  refunded_micros: '0',
  refund_of: 'NULL',
  expires_at_ms: 'NULL',
  resolved_at_ms: 'NULL',
};

/**
 * The one INSERT of a transfer row, every value a plpgsql expression; `into` names the variable that receives the
 * row written (RETURNING * INTO), if any.
 */
export function insertTransfer(transfer: NewTransfer, into?: string): string {
  const row: Partial<Record<TransferColumn, string>> = { ...NEW_TRANSFER_DEFAULTS, ...transfer };
  const columns = TRANSFER_COLUMNS.filter((column) => row[column] !== undefined);
  const returning = into === undefined ? '' : `\n    RETURNING * INTO ${into}`;
  const values = columns.map((column) => row[column]).join(', ');
  return `INSERT INTO ledger_transfers (${columns.join(', ')})\n    VALUES (${values})${returning};`;
}

/** What a charge `t` pays its payee out of `taken` (ledger_pay_out), without a call when it names none. */
export const payeeShare = (taken: string) =>
  `CASE WHEN jsonb_typeof(op->'payee') = 'object' THEN ledger_pay_out(t.id, op->'payee', ${taken}, v_now) ELSE 0 END`;

export const NOT_FOUND = `'{"ok": false, "reason": "hold_not_found"}'::jsonb`;
export const CONFLICT = `'{"ok": false, "reason": "idempotency_conflict"}'::jsonb`;
export const EXPIRED = `'{"ok": false, "reason": "hold_not_pending", "status": "expired"}'::jsonb`;
export const NOT_PENDING = `jsonb_build_object('ok', false, 'reason', 'hold_not_pending', 'status', t.status)`;
