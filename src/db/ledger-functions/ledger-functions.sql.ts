import { OPERATION_FUNCTIONS } from './operations.sql.js';
import { entry } from './plpgsql.js';
import { POSTING_FUNCTIONS } from './postings.sql.js';

/**
 * The PostgreSQL side of the ledger (src/adapters/ledger/README.md): `ledger_apply(ops jsonb)` applies a batch of
 * operations in order, in one transaction, and returns one result per operation; `ledger_expire` is the sweeper.
 * Each ledger_op_* function mirrors its counterpart in src/adapters/ledger/operations.ts step for step (checks
 * first, then writes) and answers what the TypeScript engine answers; the conformance suite holds them together.
 * Amounts arrive as decimal strings and leave as JSON numbers (the adapter refuses any beyond 2^53).
 *
 * Locks (README.md "Concurrency"): the batch's user balance rows first (payees' included), in account order; then
 * each operation's transfer row; the system rows last, once.
 *
 * To change a function, edit its SQL in this folder: nothing else to do. No migration installs it; at every start,
 * after the migrations, src/db/install-functions.ts installs LEDGER_FUNCTIONS_SQL whenever its sha256 differs from
 * the one the database records, and drops any `ledger_*` function it no longer creates (README.md "Upgrades").
 * Every function is named `ledger_*`, and each is CREATE OR REPLACE.
 */

const APPLY = entry(
  'ledger_apply(ops jsonb)',
  'jsonb',
  `DECLARE op jsonb; r jsonb; v_results jsonb[] := '{}'; v_revenue bigint := 0; v_deposits bigint := 0; v_losses bigint := 0;
  v_accounts text[]; v_money_in boolean;
BEGIN
  -- The accounts as an array, each transfer found by its key: a join against jsonb_array_elements (estimated at
  -- 100 rows) is planned as a hash join over whole tables, and plpgsql keeps that plan while the tables grow.
  SELECT array_agg(named.account) FILTER (WHERE named.account IS NOT NULL), bool_or(named.money_in) INTO v_accounts, v_money_in
    FROM jsonb_array_elements(ops) o, LATERAL (VALUES (o->>'accountId', o->>'op' IN ('credit', 'refund')), (o->'payee'->>'accountId', false),
      ((SELECT t.account_id FROM ledger_transfers t WHERE t.id = coalesce(o->>'holdId', o->>'refundOf')), false)) named (account, money_in);
  -- A batch that reserves or charges commits without waiting for the WAL flush: its answers wait for the commit, and a
  -- commit survives a killed gateway; a database crash may lose the last ones, a loss to the platform only. Money
  -- coming in or given back (credits, refunds) waits for its flush (README.md "Concurrency and durability").
  IF NOT v_money_in THEN PERFORM set_config('synchronous_commit', 'off', true); END IF;
  PERFORM 1 FROM ledger_balances WHERE account_id = ANY (v_accounts) ORDER BY account_id FOR UPDATE;
  FOR op IN SELECT value FROM jsonb_array_elements(ops) LOOP
    r := CASE op->>'op'
      WHEN 'hold' THEN ledger_op_hold(op)
      WHEN 'settle' THEN ledger_op_settle(op)
      WHEN 'capture' THEN ledger_op_capture(op)
      WHEN 'release' THEN ledger_op_release(op)
      WHEN 'extend' THEN ledger_op_extend(op)
      WHEN 'debit' THEN ledger_op_debit(op)
      WHEN 'credit' THEN ledger_op_credit(op)
      WHEN 'refund' THEN ledger_op_refund(op)
    END;
    IF r IS NULL THEN RAISE EXCEPTION 'ledger: unknown operation %', op->>'op'; END IF;
    v_revenue := v_revenue + coalesce((r->>'_revenue')::bigint, 0);
    v_deposits := v_deposits + coalesce((r->>'_deposits')::bigint, 0);
    v_losses := v_losses + coalesce((r->>'_losses')::bigint, 0);
    v_results := v_results || (r - '_revenue' - '_deposits' - '_losses');
  END LOOP;
  -- The system rows, once per batch and last: in account order, like every other batch.
  INSERT INTO ledger_balances AS b (account_id, available_micros, held_micros)
    SELECT account, delta, 0 FROM (VALUES ('system:deposits', v_deposits), ('system:losses', v_losses), ('system:revenue', v_revenue)) s (account, delta)
      WHERE delta <> 0 ORDER BY account
    ON CONFLICT (account_id) DO UPDATE SET available_micros = b.available_micros + excluded.available_micros;
  RETURN to_jsonb(v_results);
END`,
);

/** The sweeper: balances locked first (the batch order), then each due hold re-checked while it is resolved. */
const EXPIRE = entry(
  'ledger_expire(p_now bigint, p_limit integer)',
  'integer',
  `DECLARE v_ids text[]; v_count int;
BEGIN
  SELECT array_agg(id) INTO v_ids FROM (SELECT id FROM ledger_transfers WHERE status = 'pending' AND expires_at_ms <= p_now
    ORDER BY expires_at_ms LIMIT p_limit) due;
  IF v_ids IS NULL THEN RETURN 0; END IF;
  PERFORM 1 FROM ledger_balances WHERE account_id IN (SELECT account_id FROM ledger_transfers WHERE id = ANY (v_ids))
    ORDER BY account_id FOR UPDATE;
  WITH expired AS (
    UPDATE ledger_transfers SET status = 'expired', resolved_at_ms = p_now
      WHERE id = ANY (v_ids) AND status = 'pending' AND expires_at_ms <= p_now RETURNING account_id, amount_micros
  ), per_account AS (SELECT account_id, sum(amount_micros) AS held FROM expired GROUP BY account_id),
  moved AS (
    UPDATE ledger_balances b SET held_micros = b.held_micros - p.held, available_micros = b.available_micros + p.held
      FROM per_account p WHERE b.account_id = p.account_id RETURNING 1
  )
  SELECT count(*) INTO v_count FROM expired;
  RETURN v_count;
END`,
);

export const LEDGER_FUNCTIONS_SQL = [...POSTING_FUNCTIONS, ...OPERATION_FUNCTIONS, APPLY, EXPIRE].join('\n\n');
