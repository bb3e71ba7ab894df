import { CONFLICT, EXPIRED, fn, insertTransfer, NOT_FOUND, NOT_PENDING, payeeShare } from './plpgsql.js';

/**
 * One function per ledger operation, `ledger_op_<op>(op jsonb)`, each the counterpart of its step in
 * src/adapters/ledger/operations.ts (checks first, then writes); `ledger_apply` calls them in a batch's order.
 */

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
  WITH held AS (UPDATE ledger_balances SET available_micros = available_micros - v_amount, held_micros = held_micros + v_amount WHERE account_id = v_account)
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
  WITH unheld AS (UPDATE ledger_balances SET held_micros = held_micros - t.amount_micros, available_micros = available_micros + (t.amount_micros - v_posted)
      WHERE account_id = t.account_id)
  UPDATE ledger_transfers SET status = 'posted', posted_micros = v_posted, spend_micros = v_posted, resolved_at_ms = v_now, posted_at_ms = v_now
    WHERE id = t.id RETURNING * INTO t;
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
  -- One statement: the capture's row, and what it posted taken from the hold and from the account's held money.
  WITH shrunk AS (UPDATE ledger_transfers SET amount_micros = amount_micros - v_posted WHERE id = h.id),
    unheld AS (UPDATE ledger_balances SET held_micros = held_micros - v_posted WHERE account_id = h.account_id)
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
  v_paid := ${payeeShare('v_posted')};
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
  v_paid := ${payeeShare('v_taken')};
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

export const OPERATION_FUNCTIONS = [
  OP_HOLD,
  OP_SETTLE,
  OP_CAPTURE,
  OP_RELEASE,
  OP_EXTEND,
  OP_DEBIT,
  OP_CREDIT,
  OP_REFUND,
];
