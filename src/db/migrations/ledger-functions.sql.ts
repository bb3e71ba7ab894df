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
 * To change a function, edit the SQL here: nothing else to do. No migration installs it; at every start, after the
 * migrations, src/db/install-functions.ts installs this text whenever its sha256 differs from the one the database
 * records, and drops any `ledger_*` function it no longer creates (README.md "Upgrades"). Every function here is
 * named `ledger_*`, and each is CREATE OR REPLACE.
 */

/**
 * An inner function: it runs under its caller's search_path. A SET clause on every function would save and
 * restore the setting on each call, which costs more than most of these functions do.
 */
const fn = (signature: string, returns: string, body: string, volatility = '') =>
  `CREATE OR REPLACE FUNCTION ${signature} RETURNS ${returns} LANGUAGE plpgsql ${volatility} AS $fn$\n${body}\n$fn$;`;

/** An entry point: bound to the schema it was created in (`SET search_path FROM CURRENT`), which its callees inherit. */
const entry = (signature: string, returns: string, body: string) =>
  `CREATE OR REPLACE FUNCTION ${signature} RETURNS ${returns} LANGUAGE plpgsql SET search_path FROM CURRENT AS $fn$\n${body}\n$fn$;`;

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
function insertTransfer(values: NewTransfer, into?: string): string {
  const row: Partial<Record<TransferColumn, string>> = { ...NEW_TRANSFER_DEFAULTS, ...values };
  const columns = TRANSFER_COLUMNS.filter((column) => row[column] !== undefined);
  const returning = into === undefined ? '' : `\n    RETURNING * INTO ${into}`;
  return `INSERT INTO ledger_transfers (${columns.join(', ')})\n    VALUES (${columns.map((c) => row[c]).join(', ')})${returning};`;
}

const NOT_FOUND = `'{"ok": false, "reason": "hold_not_found"}'::jsonb`;
const CONFLICT = `'{"ok": false, "reason": "idempotency_conflict"}'::jsonb`;
const EXPIRED = `'{"ok": false, "reason": "hold_not_pending", "status": "expired"}'::jsonb`;
const NOT_PENDING = `jsonb_build_object('ok', false, 'reason', 'hold_not_pending', 'status', t.status)`;

/** A transfer as the adapter reads it: the row's columns and its allocations in consumption order. */
const ENTRY_JSON = fn(
  'ledger_entry_json(t ledger_transfers, allocations jsonb DEFAULT NULL)',
  'jsonb',
  `BEGIN
  IF allocations IS NULL THEN
    SELECT coalesce(jsonb_agg(jsonb_build_object('lot_id', a.lot_id, 'amount_micros', a.amount_micros, 'fx_rate_rub_micro', a.fx_rate_rub_micro) ORDER BY a.seq), '[]')
      INTO allocations FROM ledger_allocations a WHERE a.transfer_id = t.id;
  END IF;
  RETURN to_jsonb(t) || jsonb_build_object('allocations', allocations);
END`,
  'STABLE',
);

const RESOLVE = fn(
  'ledger_resolve(t ledger_transfers, p_status text, p_now bigint)',
  'ledger_transfers',
  `DECLARE r ledger_transfers;
BEGIN
  UPDATE ledger_transfers SET status = p_status, resolved_at_ms = p_now WHERE id = t.id RETURNING * INTO r;
  UPDATE ledger_balances SET held_micros = held_micros - t.amount_micros, available_micros = available_micros + t.amount_micros
    WHERE account_id = t.account_id;
  RETURN r;
END`,
);

const CONSUME_LOTS = fn(
  'ledger_consume_lots(p_account text, p_transfer text, p_amount bigint)',
  'jsonb',
  `DECLARE l record; v_left bigint := p_amount; v_take bigint; v_seq int := 0; v_allocs jsonb := '[]';
BEGIN
  IF p_amount = 0 THEN RETURN v_allocs; END IF;
  FOR l IN SELECT id, remaining_micros, fx_rate_rub_micro FROM ledger_lots
            WHERE account_id = p_account AND remaining_micros > 0 ORDER BY created_at_ms, seq LOOP
    v_take := least(l.remaining_micros, v_left);
    UPDATE ledger_lots SET remaining_micros = remaining_micros - v_take WHERE id = l.id;
    INSERT INTO ledger_allocations (transfer_id, seq, lot_id, amount_micros, fx_rate_rub_micro) VALUES (p_transfer, v_seq, l.id, v_take, l.fx_rate_rub_micro);
    v_allocs := v_allocs || jsonb_build_array(jsonb_build_object('lot_id', l.id, 'amount_micros', v_take, 'fx_rate_rub_micro', l.fx_rate_rub_micro));
    v_seq := v_seq + 1;
    v_left := v_left - v_take;
    EXIT WHEN v_left = 0;
  END LOOP;
  IF v_left > 0 THEN RAISE EXCEPTION 'ledger: lots of % are % micros short of a posting (lots must cover the balance)', p_account, v_left; END IF;
  RETURN v_allocs;
END`,
);

const RESTORE_LOTS = fn(
  'ledger_restore_lots(p_refund_of text, p_transfer text, p_amount bigint)',
  'jsonb',
  `DECLARE c record; v_left bigint := p_amount; v_open bigint; v_give bigint; v_seq int := 0; v_allocs jsonb := '[]';
BEGIN
  -- The refunded charge's allocations read backwards, each lot net of what earlier refunds gave back to it.
  FOR c IN SELECT a.lot_id, a.amount_micros, a.fx_rate_rub_micro,
                  coalesce((SELECT -sum(e.amount_micros) FROM ledger_allocations e JOIN ledger_transfers r ON r.id = e.transfer_id
                             WHERE r.refund_of = p_refund_of AND r.id <> p_transfer AND e.lot_id = a.lot_id), 0) AS restored
             FROM ledger_allocations a WHERE a.transfer_id = p_refund_of ORDER BY a.seq DESC LOOP
    EXIT WHEN v_left = 0;
    v_open := c.amount_micros - c.restored;
    CONTINUE WHEN v_open <= 0;
    v_give := least(v_open, v_left);
    UPDATE ledger_lots SET remaining_micros = remaining_micros + v_give WHERE id = c.lot_id;
    INSERT INTO ledger_allocations (transfer_id, seq, lot_id, amount_micros, fx_rate_rub_micro) VALUES (p_transfer, v_seq, c.lot_id, -v_give, c.fx_rate_rub_micro);
    v_allocs := v_allocs || jsonb_build_array(jsonb_build_object('lot_id', c.lot_id, 'amount_micros', -v_give, 'fx_rate_rub_micro', c.fx_rate_rub_micro));
    v_seq := v_seq + 1;
    v_left := v_left - v_give;
  END LOOP;
  IF v_left > 0 THEN RAISE EXCEPTION 'ledger: refund exceeds what the allocations can restore by % micros', v_left; END IF;
  RETURN v_allocs;
END`,
);

const POST_LOSS = fn(
  'ledger_post_loss(p_charge text, p_loss bigint, p_now bigint)',
  'void',
  `BEGIN
  IF p_loss = 0 THEN RETURN; END IF;
  ${insertTransfer({
    id: `'loss:' || p_charge`,
    account_id: `'system:losses'`,
    kind: `'loss'`,
    status: `'posted'`,
    amount_micros: 'p_loss',
    posted_micros: 'p_loss',
    spend_micros: '0',
    memo: `'absorbed beyond ' || p_charge`,
    created_at_ms: 'p_now',
    posted_at_ms: 'p_now',
  })}
END`,
);

/** The usage line with its cost, cost_rub from the lots that paid (half-up per lot, as money.ts), and its roll-up. */
const INSERT_USAGE = fn(
  'ledger_insert_usage(u jsonb, p_account text, p_transfer text, p_cost bigint, p_allocs jsonb)',
  'jsonb',
  `DECLARE v_billed boolean := (u->>'billedInRub')::boolean; v_rub bigint; v_rate bigint; v_day text;
BEGIN
  IF v_billed THEN
    SELECT coalesce(sum(div((a->>'amount_micros')::numeric * (a->>'fx_rate_rub_micro')::numeric + 500000, 1000000)), 0)::bigint INTO v_rub
      FROM jsonb_array_elements(p_allocs) a;
    IF p_cost > 0 THEN v_rate := div(v_rub::numeric * 1000000 + div(p_cost, 2), p_cost)::bigint; END IF;
  END IF;
  INSERT INTO usage_records (id, account_id, key_id, request_id, model, kind, endpoint, prompt_tokens, completion_tokens, cached_tokens,
      reasoning_tokens, total_tokens, cost_micros, transfer_id, billed_in_rub, cost_rub_micro, fx_rate_rub_micro, created_at_ms, duration_ms, metadata)
    VALUES (u->>'id', p_account, u->>'keyId', u->>'requestId', u->>'model', u->>'kind', u->>'endpoint', (u->>'promptTokens')::int,
      (u->>'completionTokens')::int, (u->>'cachedTokens')::int, (u->>'reasoningTokens')::int, (u->>'totalTokens')::int, p_cost, p_transfer,
      v_billed, v_rub, v_rate, (u->>'createdAtMs')::bigint, (u->>'durationMs')::int, u->>'metadata');
  v_day := to_char(date '1970-01-01' + floor((u->>'createdAtMs')::numeric / 86400000)::int, 'YYYY-MM-DD');
  INSERT INTO usage_daily AS d (account_id, day, model, kind, requests, prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens,
      total_tokens, cost_micros, billed_rub_micro, unbilled_cost_micros)
    VALUES (p_account, v_day, u->>'model', u->>'kind', 1, (u->>'promptTokens')::bigint, (u->>'completionTokens')::bigint,
      (u->>'cachedTokens')::bigint, (u->>'reasoningTokens')::bigint, (u->>'totalTokens')::bigint, p_cost,
      CASE WHEN v_billed THEN coalesce(v_rub, 0) ELSE 0 END, CASE WHEN v_billed THEN 0 ELSE p_cost END)
    ON CONFLICT (account_id, day, model, kind) DO UPDATE SET requests = d.requests + 1, prompt_tokens = d.prompt_tokens + excluded.prompt_tokens,
      completion_tokens = d.completion_tokens + excluded.completion_tokens, cached_tokens = d.cached_tokens + excluded.cached_tokens,
      reasoning_tokens = d.reasoning_tokens + excluded.reasoning_tokens, total_tokens = d.total_tokens + excluded.total_tokens,
      cost_micros = d.cost_micros + excluded.cost_micros, billed_rub_micro = d.billed_rub_micro + excluded.billed_rub_micro,
      unbilled_cost_micros = d.unbilled_cost_micros + excluded.unbilled_cost_micros;
  RETURN jsonb_build_object('costMicros', p_cost, 'costRubMicro', v_rub, 'fxRateRubMicro', v_rate);
END`,
);

const ADD_SYSTEM = fn(
  'ledger_add_system(p_account text, p_delta bigint)',
  'void',
  `BEGIN
  IF p_delta = 0 THEN RETURN; END IF;
  INSERT INTO ledger_balances AS b (account_id, available_micros, held_micros) VALUES (p_account, p_delta, 0)
    ON CONFLICT (account_id) DO UPDATE SET available_micros = b.available_micros + excluded.available_micros;
END`,
);

/**
 * The end every charge shares (settle, capture, debit) once its own rows are written: the lots that pay, the usage
 * line, what the platform absorbed beyond `p_posted`, and the outcome, with the batch's share of revenue and losses.
 */
const POST_CHARGE = fn(
  'ledger_post_charge(t ledger_transfers, p_account text, p_posted bigint, p_asked bigint, p_usage jsonb, p_now bigint)',
  'jsonb',
  `DECLARE v_allocs jsonb; v_usage jsonb;
BEGIN
  v_allocs := ledger_consume_lots(p_account, t.id, p_posted);
  IF jsonb_typeof(p_usage) = 'object' THEN v_usage := ledger_insert_usage(p_usage, p_account, t.id, p_posted, v_allocs); END IF;
  PERFORM ledger_post_loss(t.id, p_asked - p_posted, p_now);
  RETURN jsonb_build_object('ok', true, 'replayed', false, 'entry', ledger_entry_json(t, v_allocs), 'lossMicros', p_asked - p_posted, 'usage', v_usage,
    '_revenue', p_asked, '_losses', p_posted - p_asked);
END`,
);

/** Money into an account: a credit's or an earning's row, just inserted, and the lot carrying its id (README.md "Lots"). */
const FUND = fn(
  'ledger_fund(t ledger_transfers, p_lot jsonb)',
  'void',
  `BEGIN
  INSERT INTO ledger_balances AS b (account_id, available_micros, held_micros) VALUES (t.account_id, t.amount_micros, 0)
    ON CONFLICT (account_id) DO UPDATE SET available_micros = b.available_micros + excluded.available_micros;
  INSERT INTO ledger_lots (id, account_id, currency, amount_micros, remaining_micros, fx_rate_rub_micro, created_at_ms)
    VALUES (t.id, t.account_id, p_lot->>'currency', t.amount_micros, t.amount_micros, (p_lot->>'fxRateRubMicro')::bigint, t.created_at_ms);
END`,
);

/** A payee's share of a charge (README.md "Payouts"): at most what it took, as `earning:<charge>`; returns it (0: nothing written). */
const PAY_OUT = fn(
  'ledger_pay_out(p_charge text, p_payee jsonb, p_taken bigint, p_now bigint)',
  'bigint',
  `DECLARE e ledger_transfers; v_paid bigint := 0;
BEGIN
  IF jsonb_typeof(p_payee) = 'object' THEN v_paid := least((p_payee->>'amountMicros')::bigint, p_taken); END IF;
  IF v_paid = 0 THEN RETURN 0; END IF;
  ${insertTransfer(
    {
      id: `'earning:' || p_charge`,
      account_id: `p_payee->>'accountId'`,
      kind: `'credit'`,
      status: `'posted'`,
      amount_micros: 'v_paid',
      posted_micros: 'v_paid',
      spend_micros: '0',
      memo: `'earning from ' || p_charge`,
      created_at_ms: 'p_now',
      posted_at_ms: 'p_now',
    },
    'e',
  )}
  PERFORM ledger_fund(e, p_payee->'lot');
  RETURN v_paid;
END`,
);

const OP_HOLD = fn(
  'ledger_op_hold(op jsonb)',
  'jsonb',
  `DECLARE t ledger_transfers; v_account text := op->>'accountId'; v_amount bigint := (op->>'amountMicros')::bigint; v_available bigint;
BEGIN
  SELECT * INTO t FROM ledger_transfers WHERE id = op->>'id' FOR UPDATE;
  IF FOUND THEN
    IF t.kind = 'hold' AND t.account_id = v_account AND t.amount_micros = v_amount THEN
      RETURN jsonb_build_object('ok', true, 'replayed', true, 'entry', ledger_entry_json(t));
    END IF;
    RETURN ${CONFLICT};
  END IF;
  SELECT available_micros INTO v_available FROM ledger_balances WHERE account_id = v_account;
  IF coalesce(v_available, 0) < v_amount THEN
    RETURN jsonb_build_object('ok', false, 'reason', 'insufficient_balance', 'availableMicros', coalesce(v_available, 0));
  END IF;
  ${insertTransfer(
    {
      id: `op->>'id'`,
      account_id: 'v_account',
      kind: `'hold'`,
      status: `'pending'`,
      amount_micros: 'v_amount',
      posted_micros: 'NULL',
      spend_micros: '0',
      memo: `''`,
      created_at_ms: `(op->>'nowMs')::bigint`,
      expires_at_ms: `(op->>'expiresAtMs')::bigint`,
      posted_at_ms: 'NULL',
    },
    't',
  )}
  UPDATE ledger_balances SET available_micros = available_micros - v_amount, held_micros = held_micros + v_amount WHERE account_id = v_account;
  RETURN jsonb_build_object('ok', true, 'replayed', false, 'entry', ledger_entry_json(t, '[]'));
END`,
);

const OP_SETTLE = fn(
  'ledger_op_settle(op jsonb)',
  'jsonb',
  `DECLARE t ledger_transfers; v_amount bigint := (op->>'amountMicros')::bigint; v_now bigint := (op->>'nowMs')::bigint;
  v_posted bigint;
BEGIN
  SELECT * INTO t FROM ledger_transfers WHERE id = op->>'holdId' FOR UPDATE;
  IF NOT FOUND OR t.kind <> 'hold' THEN RETURN ${NOT_FOUND}; END IF;
  IF t.status = 'posted' THEN
    IF t.posted_micros = least(v_amount, t.amount_micros) THEN
      RETURN jsonb_build_object('ok', true, 'replayed', true, 'entry', ledger_entry_json(t), 'lossMicros', 0);
    END IF;
    RETURN ${CONFLICT};
  END IF;
  IF t.status <> 'pending' THEN RETURN ${NOT_PENDING}; END IF;
  IF t.expires_at_ms <= v_now THEN
    PERFORM ledger_resolve(t, 'expired', v_now);
    RETURN ${EXPIRED};
  END IF;
  v_posted := least(v_amount, t.amount_micros);
  UPDATE ledger_transfers SET status = 'posted', posted_micros = v_posted, spend_micros = v_posted, resolved_at_ms = v_now, posted_at_ms = v_now
    WHERE id = t.id RETURNING * INTO t;
  UPDATE ledger_balances SET held_micros = held_micros - t.amount_micros, available_micros = available_micros + (t.amount_micros - v_posted)
    WHERE account_id = t.account_id;
  RETURN ledger_post_charge(t, t.account_id, v_posted, v_amount, op->'usage', v_now);
END`,
);

const OP_CAPTURE = fn(
  'ledger_op_capture(op jsonb)',
  'jsonb',
  `DECLARE t ledger_transfers; h ledger_transfers; v_amount bigint := (op->>'amountMicros')::bigint; v_now bigint := (op->>'nowMs')::bigint;
  v_posted bigint; v_paid bigint; r jsonb;
BEGIN
  SELECT * INTO t FROM ledger_transfers WHERE id = op->>'id' FOR UPDATE;
  IF FOUND THEN
    IF t.kind = 'capture' AND t.hold_id = op->>'holdId' AND t.amount_micros = v_amount THEN
      RETURN jsonb_build_object('ok', true, 'replayed', true, 'entry', ledger_entry_json(t), 'lossMicros', 0);
    END IF;
    RETURN ${CONFLICT};
  END IF;
  SELECT * INTO h FROM ledger_transfers WHERE id = op->>'holdId' FOR UPDATE;
  IF NOT FOUND OR h.kind <> 'hold' THEN RETURN ${NOT_FOUND}; END IF;
  -- The account charged is the hold's, known only here: a payee naming it is the caller's bug (a RangeError, as in TypeScript).
  IF op->'payee'->>'accountId' = h.account_id THEN
    RETURN jsonb_build_object('ok', false, 'rangeError', 'ledger: a payee must be another account than the one charged (' || h.account_id || ')');
  END IF;
  IF h.status <> 'pending' THEN RETURN jsonb_build_object('ok', false, 'reason', 'hold_not_pending', 'status', h.status); END IF;
  IF h.expires_at_ms <= v_now THEN
    PERFORM ledger_resolve(h, 'expired', v_now);
    RETURN ${EXPIRED};
  END IF;
  v_posted := least(v_amount, (op->>'capMicros')::bigint, h.amount_micros);
  ${insertTransfer(
    {
      id: `op->>'id'`,
      account_id: 'h.account_id',
      kind: `'capture'`,
      status: `'posted'`,
      amount_micros: 'v_amount',
      posted_micros: 'v_posted',
      spend_micros: 'v_posted',
      hold_id: 'h.id',
      memo: `'captured from ' || h.id`,
      created_at_ms: 'v_now',
      posted_at_ms: 'v_now',
    },
    't',
  )}
  UPDATE ledger_transfers SET amount_micros = amount_micros - v_posted WHERE id = h.id;
  UPDATE ledger_balances SET held_micros = held_micros - v_posted WHERE account_id = h.account_id;
  v_paid := ledger_pay_out(t.id, op->'payee', v_posted, v_now);
  r := ledger_post_charge(t, h.account_id, v_posted, v_amount, op->'usage', v_now);
  -- As for a debit: the payee's share of what was posted comes out of what revenue receives.
  RETURN r || jsonb_build_object('_revenue', (r->>'_revenue')::bigint - v_paid);
END`,
);

const OP_RELEASE = fn(
  'ledger_op_release(op jsonb)',
  'jsonb',
  `DECLARE t ledger_transfers; v_now bigint := (op->>'nowMs')::bigint;
BEGIN
  SELECT * INTO t FROM ledger_transfers WHERE id = op->>'holdId' FOR UPDATE;
  IF NOT FOUND OR t.kind <> 'hold' THEN RETURN ${NOT_FOUND}; END IF;
  IF t.status = 'voided' THEN RETURN jsonb_build_object('ok', true, 'replayed', true, 'entry', ledger_entry_json(t, '[]')); END IF;
  IF t.status <> 'pending' THEN RETURN ${NOT_PENDING}; END IF;
  IF t.expires_at_ms <= v_now THEN
    PERFORM ledger_resolve(t, 'expired', v_now);
    RETURN ${EXPIRED};
  END IF;
  RETURN jsonb_build_object('ok', true, 'replayed', false, 'entry', ledger_entry_json(ledger_resolve(t, 'voided', v_now), '[]'));
END`,
);

const OP_EXTEND = fn(
  'ledger_op_extend(op jsonb)',
  'jsonb',
  `DECLARE t ledger_transfers; v_now bigint := (op->>'nowMs')::bigint;
BEGIN
  SELECT * INTO t FROM ledger_transfers WHERE id = op->>'holdId' FOR UPDATE;
  IF NOT FOUND OR t.kind <> 'hold' THEN RETURN ${NOT_FOUND}; END IF;
  IF t.status <> 'pending' THEN RETURN ${NOT_PENDING}; END IF;
  IF t.expires_at_ms <= v_now THEN
    PERFORM ledger_resolve(t, 'expired', v_now);
    RETURN ${EXPIRED};
  END IF;
  UPDATE ledger_transfers SET expires_at_ms = greatest(expires_at_ms, (op->>'expiresAtMs')::bigint) WHERE id = t.id RETURNING * INTO t;
  RETURN jsonb_build_object('ok', true, 'entry', ledger_entry_json(t, '[]'));
END`,
);

const OP_DEBIT = fn(
  'ledger_op_debit(op jsonb)',
  'jsonb',
  `DECLARE t ledger_transfers; v_account text := op->>'accountId'; v_amount bigint := (op->>'amountMicros')::bigint; v_now bigint := (op->>'nowMs')::bigint;
  v_available bigint; v_taken bigint; v_paid bigint; r jsonb;
BEGIN
  SELECT * INTO t FROM ledger_transfers WHERE id = op->>'id' FOR UPDATE;
  IF FOUND THEN
    IF t.kind = 'debit' AND t.account_id = v_account AND t.amount_micros = v_amount THEN
      RETURN jsonb_build_object('ok', true, 'replayed', true, 'entry', ledger_entry_json(t), 'lossMicros', 0);
    END IF;
    RETURN ${CONFLICT};
  END IF;
  SELECT coalesce(max(available_micros), 0) INTO v_available FROM ledger_balances WHERE account_id = v_account;
  IF v_available < v_amount AND NOT (op->>'allowShortfall')::boolean THEN
    RETURN jsonb_build_object('ok', false, 'reason', 'insufficient_balance', 'availableMicros', v_available);
  END IF;
  v_taken := least(v_available, v_amount);
  ${insertTransfer(
    {
      id: `op->>'id'`,
      account_id: 'v_account',
      kind: `'debit'`,
      status: `'posted'`,
      amount_micros: 'v_amount',
      posted_micros: 'v_taken',
      spend_micros: 'v_taken',
      memo: `op->>'memo'`,
      created_at_ms: 'v_now',
      posted_at_ms: 'v_now',
    },
    't',
  )}
  IF v_taken > 0 THEN UPDATE ledger_balances SET available_micros = available_micros - v_taken WHERE account_id = v_account; END IF;
  v_paid := ledger_pay_out(t.id, op->'payee', v_taken, v_now);
  r := ledger_post_charge(t, v_account, v_taken, v_amount, op->'usage', v_now);
  -- A payee's share comes out of what revenue receives, never out of deposits.
  RETURN r || jsonb_build_object('_revenue', (r->>'_revenue')::bigint - v_paid);
END`,
);

const OP_CREDIT = fn(
  'ledger_op_credit(op jsonb)',
  'jsonb',
  `DECLARE t ledger_transfers; v_account text := op->>'accountId'; v_amount bigint := (op->>'amountMicros')::bigint; v_now bigint := (op->>'nowMs')::bigint;
  v_currency text := op->'lot'->>'currency'; v_rate bigint := (op->'lot'->>'fxRateRubMicro')::bigint;
BEGIN
  SELECT * INTO t FROM ledger_transfers WHERE id = op->>'id' FOR UPDATE;
  IF FOUND THEN
    IF t.kind = 'credit' AND t.account_id = v_account AND t.amount_micros = v_amount
       AND EXISTS (SELECT 1 FROM ledger_lots WHERE id = t.id AND currency = v_currency AND fx_rate_rub_micro = v_rate) THEN
      RETURN jsonb_build_object('ok', true, 'replayed', true, 'entry', ledger_entry_json(t, '[]'), 'lossMicros', 0);
    END IF;
    RETURN ${CONFLICT};
  END IF;
  ${insertTransfer(
    {
      id: `op->>'id'`,
      account_id: 'v_account',
      kind: `'credit'`,
      status: `'posted'`,
      amount_micros: 'v_amount',
      posted_micros: 'v_amount',
      spend_micros: '0',
      memo: `op->>'memo'`,
      created_at_ms: 'v_now',
      posted_at_ms: 'v_now',
    },
    't',
  )}
  PERFORM ledger_fund(t, op->'lot');
  RETURN jsonb_build_object('ok', true, 'replayed', false, 'entry', ledger_entry_json(t, '[]'), 'lossMicros', 0, '_deposits', -v_amount);
END`,
);

const OP_REFUND = fn(
  'ledger_op_refund(op jsonb)',
  'jsonb',
  `DECLARE target ledger_transfers; t ledger_transfers; v_amount bigint := (op->>'amountMicros')::bigint; v_now bigint := (op->>'nowMs')::bigint;
  v_allocs jsonb;
BEGIN
  SELECT * INTO target FROM ledger_transfers WHERE id = op->>'refundOf' FOR UPDATE;
  IF NOT FOUND OR target.status <> 'posted' OR target.kind NOT IN ('debit', 'capture', 'hold') THEN
    RETURN '{"ok": false, "reason": "transfer_not_found"}'::jsonb;
  END IF;
  SELECT * INTO t FROM ledger_transfers WHERE id = op->>'id' FOR UPDATE;
  IF FOUND THEN
    IF t.kind = 'refund' AND t.refund_of = target.id AND t.amount_micros = v_amount THEN
      RETURN jsonb_build_object('ok', true, 'replayed', true, 'entry', ledger_entry_json(t), 'lossMicros', 0);
    END IF;
    RETURN ${CONFLICT};
  END IF;
  IF v_amount > coalesce(target.posted_micros, 0) - target.refunded_micros THEN RETURN '{"ok": false, "reason": "exceeds_refundable"}'::jsonb; END IF;
  ${insertTransfer(
    {
      id: `op->>'id'`,
      account_id: 'target.account_id',
      kind: `'refund'`,
      status: `'posted'`,
      amount_micros: 'v_amount',
      posted_micros: 'v_amount',
      spend_micros: '-v_amount',
      refund_of: 'target.id',
      memo: `op->>'memo'`,
      created_at_ms: 'v_now',
      posted_at_ms: 'v_now',
    },
    't',
  )}
  UPDATE ledger_transfers SET refunded_micros = refunded_micros + v_amount WHERE id = target.id;
  UPDATE ledger_balances SET available_micros = available_micros + v_amount WHERE account_id = target.account_id;
  v_allocs := ledger_restore_lots(target.id, t.id, v_amount);
  RETURN jsonb_build_object('ok', true, 'replayed', false, 'entry', ledger_entry_json(t, v_allocs), 'lossMicros', 0, '_revenue', -v_amount);
END`,
);

const APPLY = entry(
  'ledger_apply(ops jsonb)',
  'jsonb',
  `DECLARE op jsonb; r jsonb; v_results jsonb[] := '{}'; v_revenue bigint := 0; v_deposits bigint := 0; v_losses bigint := 0;
  v_accounts text[];
BEGIN
  -- A batch that reserves or charges commits without waiting for the WAL flush: its answers wait for the commit, and a
  -- commit survives a killed gateway; a database crash may lose the last ones, a loss to the platform only. Money
  -- coming in or given back (credits, refunds) waits for its flush (README.md "Concurrency and durability").
  IF NOT EXISTS (SELECT 1 FROM jsonb_array_elements(ops) o WHERE o->>'op' IN ('credit', 'refund')) THEN
    PERFORM set_config('synchronous_commit', 'off', true);
  END IF;
  -- The accounts as an array, each transfer found by its key: a join against jsonb_array_elements (estimated at
  -- 100 rows) is planned as a hash join over whole tables, and plpgsql keeps that plan while the tables grow.
  SELECT array_agg(account) INTO v_accounts FROM (
      SELECT o->>'accountId' FROM jsonb_array_elements(ops) o
      UNION ALL SELECT o->'payee'->>'accountId' FROM jsonb_array_elements(ops) o
      UNION ALL SELECT (SELECT t.account_id FROM ledger_transfers t WHERE t.id = coalesce(o->>'holdId', o->>'refundOf'))
        FROM jsonb_array_elements(ops) o) named (account)
    WHERE account IS NOT NULL;
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
  PERFORM ledger_add_system('system:deposits', v_deposits);
  PERFORM ledger_add_system('system:losses', v_losses);
  PERFORM ledger_add_system('system:revenue', v_revenue);
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

export const LEDGER_FUNCTIONS_SQL = [
  ENTRY_JSON,
  RESOLVE,
  CONSUME_LOTS,
  RESTORE_LOTS,
  POST_LOSS,
  INSERT_USAGE,
  ADD_SYSTEM,
  POST_CHARGE,
  FUND,
  PAY_OUT,
  OP_HOLD,
  OP_SETTLE,
  OP_CAPTURE,
  OP_RELEASE,
  OP_EXTEND,
  OP_DEBIT,
  OP_CREDIT,
  OP_REFUND,
  APPLY,
  EXPIRE,
].join('\n\n');
