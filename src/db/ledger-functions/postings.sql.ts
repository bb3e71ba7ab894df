import { fn, insertTransfer } from './plpgsql.js';

/**
 * The steps the ledger operations share (operations.sql.ts): a transfer as JSON, a hold resolved, lots consumed and
 * restored, losses, usage lines, system balances, and what ends every charge.
 */

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
    WITH spent AS (UPDATE ledger_lots SET remaining_micros = remaining_micros - v_take WHERE id = l.id)
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
    WITH restored AS (UPDATE ledger_lots SET remaining_micros = remaining_micros + v_give WHERE id = c.lot_id)
    INSERT INTO ledger_allocations (transfer_id, seq, lot_id, amount_micros, fx_rate_rub_micro) VALUES (p_transfer, v_seq, c.lot_id, -v_give, c.fx_rate_rub_micro);
    v_allocs := v_allocs || jsonb_build_array(jsonb_build_object('lot_id', c.lot_id, 'amount_micros', -v_give, 'fx_rate_rub_micro', c.fx_rate_rub_micro));
    v_seq := v_seq + 1;
    v_left := v_left - v_give;
  END LOOP;
  IF v_left > 0 THEN RAISE EXCEPTION 'ledger: refund exceeds what the allocations can restore by % micros', v_left; END IF;
  RETURN v_allocs;
END`,
);

/** What the platform absorbed beyond what a charge could post (never 0: the caller checks). */
const POST_LOSS = fn(
  'ledger_post_loss(p_charge text, p_loss bigint, p_now bigint)',
  'void',
  `BEGIN
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
  v_day := to_char(date '1970-01-01' + floor((u->>'createdAtMs')::numeric / 86400000)::int, 'YYYY-MM-DD');
  WITH line AS (INSERT INTO usage_records (id, account_id, key_id, request_id, model, kind, endpoint, prompt_tokens, completion_tokens, cached_tokens,
      reasoning_tokens, total_tokens, cost_micros, transfer_id, billed_in_rub, cost_rub_micro, fx_rate_rub_micro, created_at_ms, duration_ms, metadata)
    VALUES (u->>'id', p_account, u->>'keyId', u->>'requestId', u->>'model', u->>'kind', u->>'endpoint', (u->>'promptTokens')::int,
      (u->>'completionTokens')::int, (u->>'cachedTokens')::int, (u->>'reasoningTokens')::int, (u->>'totalTokens')::int, p_cost, p_transfer,
      v_billed, v_rub, v_rate, (u->>'createdAtMs')::bigint, (u->>'durationMs')::int, u->>'metadata'))
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
  IF p_asked <> p_posted THEN PERFORM ledger_post_loss(t.id, p_asked - p_posted, p_now); END IF;
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

/**
 * A payee's share of a charge (README.md "Payouts"): at most what it took, as `earning:<charge>`; returns it (0: nothing
 * written). Called only for a charge that names a payee (`payeeShare` in plpgsql.ts).
 */
const PAY_OUT = fn(
  'ledger_pay_out(p_charge text, p_payee jsonb, p_taken bigint, p_now bigint)',
  'bigint',
  `DECLARE e ledger_transfers; v_paid bigint := least((p_payee->>'amountMicros')::bigint, p_taken);
BEGIN
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

/** In the order they are created: each after the functions its parameters name. */
export const POSTING_FUNCTIONS = [
  ENTRY_JSON,
  RESOLVE,
  CONSUME_LOTS,
  RESTORE_LOTS,
  POST_LOSS,
  INSERT_USAGE,
  POST_CHARGE,
  FUND,
  PAY_OUT,
];
