import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteAccount, issueKey } from '../../src/domain/accounts/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { sleep } from '../setup/time.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const today = () => day(Date.now());
const shift = (d: string, days: number) => day(Date.parse(`${d}T00:00:00Z`) + days * DAY_MS);

/** Lets the clock move on, so records written around it have distinct times (newest-first is by time). */
const tick = () => sleep(3);

const COLUMNS = [
  'id',
  'created_at',
  'request_id',
  'key_id',
  'model',
  'kind',
  'endpoint',
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'reasoning_tokens',
  'total_tokens',
  'cost_usd',
  'cost_rub',
  'fx_rate_rub',
  'rub_pricing',
];

const exportCsv = (key: string | undefined, query = '') =>
  call(h.baseUrl, 'GET', `/v1/llm/usage/export${query}`, key === undefined ? {} : { key });

/** An RFC 4180 reader: quoted fields may hold commas, quotes ("") and line breaks; records end in CRLF. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  if (field !== '' || row.length > 0) throw new Error(`CSV does not end with CRLF: ${JSON.stringify(text.slice(-40))}`);
  return rows;
}

/** The CSV as objects keyed by the header line. */
function records(text: string): Record<string, string>[] {
  const [header, ...lines] = parseCsv(text);
  expect(header).toEqual(COLUMNS);
  for (const line of lines) expect(line).toHaveLength(COLUMNS.length);
  return lines.map((line) => Object.fromEntries(COLUMNS.map((c, i) => [c, line[i]!])));
}

describe('GET /v1/llm/usage/export', () => {
  it('200: text/csv, the documented header, one line per record newest first, market rubles for a dollar account', async () => {
    const { apiKey, keyId } = await h.newAccount(undefined, { balanceUsd: 10 });
    await h.newAccount(undefined, { balanceUsd: 1 }).then((o) => h.spend(o.apiKey, 0.5)); // not ours
    const first = await h.spend(apiKey, 0.123456, {
      promptTokens: 12,
      completionTokens: 30,
      cachedTokens: 2,
      reasoningTokens: 9,
    });
    await tick();
    const second = await h.spend(apiKey, 1.5, {
      model: 'text-embedding-3-small',
      kind: 'embedding',
      endpoint: '/v1/compat/embeddings',
      promptTokens: 8,
    });

    const response = await exportCsv(apiKey);
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/csv\b/);
    const t = today();
    expect(response.headers.get('content-disposition')).toBe(`attachment; filename="usage-${shift(t, -29)}-${t}.csv"`);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(response.headers.get('x-ratelimit-limit')).toBe('120');
    expect(response.text.split('\r\n')[0]).toBe(COLUMNS.join(','));
    expect(response.text.split('\r\n')).toHaveLength(1 + 2 + 1); // header, two records, the final CRLF

    const rows = records(response.text);
    expect(rows.map((r) => r.id)).toEqual([second.usageId, first.usageId]);
    expect(rows[1]).toEqual({
      id: first.usageId,
      created_at: expect.stringMatching(new RegExp(`^${t}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$`)),
      request_id: expect.stringMatching(/^req_/),
      key_id: keyId,
      model: 'gpt-5-mini',
      kind: 'chat',
      endpoint: '/v1/compat/chat/completions',
      prompt_tokens: '12',
      completion_tokens: '30',
      cached_tokens: '2',
      reasoning_tokens: '9',
      total_tokens: '42',
      cost_usd: '0.123456',
      cost_rub: '11.11104',
      fx_rate_rub: '90',
      rub_pricing: 'market',
    });
    expect(rows[0]).toMatchObject({
      model: 'text-embedding-3-small',
      kind: 'embedding',
      cost_usd: '1.5',
      cost_rub: '135',
      fx_rate_rub: '90',
      rub_pricing: 'market',
    });

    // The same records as the JSON listing shows them.
    const listed = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/usage/requests', { key: apiKey })).requests;
    expect(rows.map((r) => r.created_at)).toEqual(listed.map((r: { created_at: string }) => r.created_at));
    expect(rows.map((r) => r.request_id)).toEqual(listed.map((r: { request_id: string }) => r.request_id));
  });

  it('200: billed rubles at the lot rates after the switch, market before it', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await h.topUp(accountId, 10, 90);
    await h.topUp(accountId, 10, 100);
    await h.spend(apiKey, 4); // before the switch (takes $4 of the 90 lot, but is priced at market)
    await tick();
    expectNativeOk(await call(h.baseUrl, 'PUT', '/v1/settings/rub-billing', { key: apiKey, body: { enabled: true } }));
    await h.spend(apiKey, 8); // $6 left at 90 + $2 at 100 = 740 RUB
    await tick();
    await h.spend(apiKey, 1); // at 100
    const rows = records((await exportCsv(apiKey)).text);
    expect(rows.map((r) => [r.cost_usd, r.cost_rub, r.fx_rate_rub, r.rub_pricing])).toEqual([
      ['1', '100', '100', 'billed'],
      ['8', '740', '92.5', 'billed'],
      ['4', '360', '90', 'market'],
    ]);
  });

  it('200: fields with commas, quotes and line breaks are quoted so the CSV parses back to the same values', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const model = 'vendor/model "beta", v2';
    const endpoint = '/v1/odd,path\r\nnext';
    const charge = await h.spend(apiKey, 0.01, { model, endpoint });
    const response = await exportCsv(apiKey);
    expect(response.text).toContain('"vendor/model ""beta"", v2"');
    const rows = records(response.text);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: charge.usageId, model, endpoint, cost_usd: '0.01', cost_rub: '0.9' });
  });

  it('200: key_id exports that key’s records only (issue 26)', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const second = await issueKey(h.deps.apiKeys, accountId, 'second');
    await h.spend(apiKey, 0.01);
    const theirs = await h.spend(second.secret, 0.02);
    const rows = records((await exportCsv(apiKey, `?key_id=${second.record.id}`)).text);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: theirs.usageId, key_id: second.record.id, cost_usd: '0.02' });
  });

  it('200: only the header line for a range without usage', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    await h.spend(apiKey, 0.01);
    const response = await exportCsv(apiKey, '?from=2024-01-01&to=2024-01-31');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="usage-2024-01-01-2024-01-31.csv"');
    expect(response.text).toBe(`${COLUMNS.join(',')}\r\n`);
  });

  it('400 invalid_request when from is after to, for a range over 366 days, and for a malformed date', async () => {
    const { apiKey } = await h.newAccount();
    const reversed = await exportCsv(apiKey, '?from=2025-02-02&to=2025-02-01');
    expectNativeError(reversed, 400, 'invalid_request');
    expect(reversed.body.data.error).toMatch(/^query\.from: /);
    expectNativeError(await exportCsv(apiKey, '?from=2024-01-01&to=2025-01-02'), 400, 'invalid_request');
    const malformed = await exportCsv(apiKey, '?to=tomorrow');
    expectNativeError(malformed, 400, 'invalid_request');
    expect(malformed.body.data.meta.fields[0]).toMatchObject({ type: 'format', loc: ['query', 'to'] });
  });

  it('400 invalid_request with meta.fields for a date that does not exist', async () => {
    const { apiKey } = await h.newAccount();
    const impossibleTo = await exportCsv(apiKey, '?to=2025-19-39');
    expectNativeError(impossibleTo, 400, 'invalid_request');
    expect(impossibleTo.body.data.meta.fields[0]).toMatchObject({ type: 'format', loc: ['query', 'to'] });
    expectNativeError(await exportCsv(apiKey, '?from=2025-13-01'), 400, 'invalid_request');
  });

  it('401 authentication_required without a key', async () => {
    expectNativeError(await exportCsv(undefined), 401, 'authentication_required');
  });

  it('404 user_not_found once the account behind the key was deleted', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await deleteAccount(h.deps.apiKeys, accountId);
    expectNativeError(await exportCsv(apiKey), 404, 'user_not_found');
  });
});
