/**
 * Nesting is capped before parsing (src/http/json-depth.ts): a body nested deeper than MAX_JSON_DEPTH answers
 * 400 `invalid_request` naming the limit on every JSON operation, idempotent or not, paid or not, before anything
 * walks it (the validator, the idempotency fingerprint, prompt counting each overflowed the stack: a 500), on
 * SQLite and on PostgreSQL + Redis. Bodies up to the limit, and brackets inside strings, pass as before.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/http/json-depth.js';
import { HARNESS_DATABASES } from '../setup/databases.js';
import { expectCompatError, expectNativeError } from '../setup/envelopes.js';
import { call, type Harness } from '../setup/harness.js';
import { harnessOn } from '../setup/suite-harness.js';

const MODEL = 'gpt-5-mini';
const MESSAGES = [{ role: 'user', content: 'Say hello' }];

/** A JSON Schema nested `levels` objects deep, as raw JSON text (no recursion to build or print it). */
function deepSchema(levels: number): string {
  return `${'{"type":"object","properties":{"a":'.repeat(levels)}{"type":"string"}${'}}'.repeat(levels)}`;
}

/** A chat body whose one tool's parameters nest so that the whole body is `depth` deep. */
function chatWithToolDepth(depth: number): string {
  // body { tools [ { function { parameters = schema } } ] }: 4 levels, then the schema's 2 per property level and its leaf.
  const levels = (depth - 5) / 2;
  const tool = `{"type":"function","function":{"name":"deep","parameters":${deepSchema(levels)}}}`;
  return `{"model":"${MODEL}","messages":${JSON.stringify(MESSAGES)},"max_tokens":8,"tools":[${tool}]}`;
}

describe.each(HARNESS_DATABASES)('nested JSON bodies on $name', (database) => {
  const harness = harnessOn(database, database.name === 'PostgreSQL' ? { REDIS_URL: 'redis://127.0.0.1:6379' } : {});
  let h: Harness;
  let key: string;
  let accountId: string;
  beforeAll(async () => {
    h = harness();
    ({ apiKey: key, accountId } = await h.newAccount(undefined, { balanceUsd: 5 }));
  });

  const post = (path: string, rawBody: string, headers: Record<string, string> = {}) =>
    call(h.baseUrl, 'POST', path, { key, rawBody, headers: { 'content-type': 'application/json', ...headers } });

  it('chat with a tool nested 100,000 deep (with and without an Idempotency-Key): 400 naming the limit, nothing held', async () => {
    const opening = await h.deps.ledger.getBalance(accountId);
    for (const headers of [{}, { 'idempotency-key': 'deep-1' }] as Record<string, string>[]) {
      const response = await post('/v1/compat/chat/completions', chatWithToolDepth(200_001), headers);
      expectCompatError(response, 400, 'invalid_request');
      expect(response.body.error.message).toContain(String(MAX_JSON_DEPTH));
    }
    expect(await h.deps.ledger.getBalance(accountId)).toEqual(opening);
  });

  it('every kind of operation: a native chat, embeddings, a volume, an image check, a machine registration', async () => {
    const deep = `{"input":${'['.repeat(50_000)}${']'.repeat(50_000)}}`;
    for (const path of [
      '/v1/llm/chat/completions',
      '/v1/compat/embeddings',
      '/v1/volumes',
      '/v1/burst/orders/image-check',
      '/v1/provider/machines',
    ]) {
      const response = await post(path, deep, { 'idempotency-key': `deep-${path}` });
      if (path.startsWith('/v1/compat/')) expectCompatError(response, 400, 'invalid_request');
      else expectNativeError(response, 400, 'invalid_request');
      expect(response.text).toContain(String(MAX_JSON_DEPTH));
    }
  });

  it('a body in UTF-16 is decoded before it is scanned', async () => {
    const deep = Buffer.from(`{"input":${'['.repeat(1_000)}${']'.repeat(1_000)}}`, 'utf16le');
    const response = await fetch(`${h.baseUrl}/v1/compat/embeddings`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json; charset=utf-16le',
        'user-agent': 'integration-tests/1',
      },
      body: deep,
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(String(MAX_JSON_DEPTH));
  });

  it('a tool nested to the limit is answered; past it is refused; brackets in text never count', async () => {
    expect((await post('/v1/compat/chat/completions', chatWithToolDepth(MAX_JSON_DEPTH - 1))).status).toBe(200);
    expectCompatError(
      await post('/v1/compat/chat/completions', chatWithToolDepth(MAX_JSON_DEPTH + 1)),
      400,
      'invalid_request',
    );
    const brackets = JSON.stringify({
      model: MODEL,
      max_tokens: 8,
      messages: [{ role: 'user', content: `${'[{'.repeat(5_000)} "\\" ]` }],
    });
    expect((await post('/v1/compat/chat/completions', brackets)).status).toBe(200);
  });
});
