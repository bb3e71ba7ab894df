/**
 * Shared by the integration suites that drive the gateway against local fake upstreams: chat calls, raw SSE
 * reading, the operator alert (log line and metric), and money snapshots (balance, posted spend, usage records).
 */
import { expect } from 'vitest';
import type { UsageRecord } from '../../src/adapters/usage-log/index.js';
import { call, type Harness, type JsonResponse } from '../setup/harness.js';
import { eventually } from '../setup/polling.js';

export const CHAT_PATH = '/v1/compat/chat/completions';
export const RESPONSES_PATH = '/v1/compat/responses';
export const MESSAGES = [{ role: 'user', content: 'Say hello in three words.' }];

export function chat(h: Harness, key: string, body: Record<string, unknown>): Promise<JsonResponse> {
  return call(h.baseUrl, 'POST', CHAT_PATH, { key, body: { model: 'gpt-5-mini', messages: MESSAGES, ...body } });
}

export interface SseResult {
  status: number;
  headers: Headers;
  /** The body exactly as received. */
  raw: string;
  /** The payload of every `data:` frame, in order (`[DONE]` included). */
  frames: string[];
}

/** POSTs a streaming chat and reads the whole body raw; bounded by `timeoutMs`. */
export function streamChat(
  h: Harness,
  key: string,
  body: Record<string, unknown>,
  timeoutMs = 15_000,
): Promise<SseResult> {
  return streamPost(h, key, CHAT_PATH, { model: 'gpt-5-mini', messages: MESSAGES, stream: true, ...body }, timeoutMs);
}

/** POSTs a streaming Responses request (SPEC 4.2) and reads the whole body raw. */
export function streamResponses(
  h: Harness,
  key: string,
  body: Record<string, unknown>,
  timeoutMs = 15_000,
): Promise<SseResult> {
  return streamPost(
    h,
    key,
    RESPONSES_PATH,
    { model: 'gpt-5-mini', input: MESSAGES[0]!.content, stream: true, ...body },
    timeoutMs,
  );
}

async function streamPost(
  h: Harness,
  key: string,
  path: string,
  body: Record<string, unknown>,
  timeoutMs: number,
): Promise<SseResult> {
  const response = await fetch(h.baseUrl + path, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'user-agent': 'integration-tests/1',
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const raw = await response.text();
  return { status: response.status, headers: response.headers, raw, frames: dataFrames(raw) };
}

/** The named events of a Responses stream: each event's `event:` name and its parsed data (`[DONE]` left out). */
export function namedEvents(result: SseResult): { event: string | undefined; data: Record<string, any> }[] {
  return result.raw
    .split(/\r?\n\r?\n/)
    .map((block) => ({ event: /^event: (.*)$/m.exec(block)?.[1], data: dataFrames(block)[0] }))
    .filter((e): e is { event: string | undefined; data: string } => e.data !== undefined && e.data !== '[DONE]')
    .map(({ event, data }) => ({ event, data: JSON.parse(data) as Record<string, any> }));
}

/** The `data:` payloads of an SSE body (comments and other fields ignored). */
export function dataFrames(raw: string): string[] {
  return raw
    .split(/\r?\n\r?\n/)
    .flatMap((event) =>
      event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).replace(/^ /, '')),
    )
    .filter((data) => data.length > 0);
}

/** The JSON frames (everything but `[DONE]`), parsed. */
export function jsonFrames(result: SseResult): Record<string, any>[] {
  return result.frames.filter((f) => f !== '[DONE]').map((f) => JSON.parse(f) as Record<string, any>);
}

/** DESIGN 8: whatever happened, the stream ends with exactly one `data: [DONE]`, as its last frame. */
export function expectEndsWithDone(result: SseResult): void {
  expect(result.frames.at(-1), result.raw).toBe('[DONE]');
  expect(result.frames.filter((f) => f === '[DONE]')).toHaveLength(1);
  expect(result.raw.endsWith('data: [DONE]\n\n'), result.raw).toBe(true);
}

/** Content text of the chunks, concatenated. */
export function streamedText(result: SseResult): string {
  return jsonFrames(result)
    .flatMap((chunk) => (Array.isArray(chunk.choices) ? chunk.choices : []))
    .map((choice: any) => (typeof choice?.delta?.content === 'string' ? choice.delta.content : ''))
    .join('');
}

/** The operator alert's log lines (SPEC 7.3) for one request. */
export function alertLines(h: Harness, requestId: string | null): Record<string, unknown>[] {
  return h.logs.filter((line) => line.event === 'chain_exhausted' && line.requestId === requestId);
}

/** The value of gateway_chain_exhausted_total{model, code} on GET /metrics (0 when the series does not exist yet). */
export async function exhaustedMetric(h: Harness, model: string, code: string): Promise<number> {
  const response = await fetch(`${h.baseUrl}/metrics`, { headers: { 'user-agent': 'integration-tests/1' } });
  expect(response.status).toBe(200);
  const text = await response.text();
  for (const line of text.split('\n')) {
    const match = /^gateway_chain_exhausted_total\{([^}]*)\}\s+(\S+)$/.exec(line);
    if (match === null) continue;
    const labels = Object.fromEntries([...match[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (labels.model === model && labels.code === code) return Number(match[2]);
  }
  return 0;
}

export interface MoneySnapshot {
  availableMicros: bigint;
  heldMicros: bigint;
  postedMicros: bigint;
  records: UsageRecord[];
}

/** Balance, posted spend and usage records of an account. */
export async function money(h: Harness, accountId: string): Promise<MoneySnapshot> {
  const balance = await h.deps.ledger.getBalance(accountId);
  return {
    availableMicros: balance.availableMicros,
    heldMicros: balance.heldMicros,
    postedMicros: await h.deps.ledger.postedSpend(accountId),
    records: await h.deps.usageLog.list(accountId, {}, { limit: 1000, offset: 0 }),
  };
}

/**
 * The snapshot once nothing is held any more and `records` usage records exist: a stream is settled or released
 * after its last byte went out, so the client can see `[DONE]` a moment before the ledger moves.
 */
export async function moneyWhenSettled(h: Harness, accountId: string, records: number): Promise<MoneySnapshot> {
  return eventually(
    async () => {
      const snapshot = await money(h, accountId);
      return snapshot.heldMicros === 0n && snapshot.records.length >= records ? snapshot : undefined;
    },
    5_000,
    `no hold left and ${records} usage record(s)`,
  );
}

/** A failed request costs nothing: same balance, nothing held, no posted spend, no usage record. */
export async function expectNothingBilled(h: Harness, accountId: string, before: MoneySnapshot): Promise<void> {
  const after = await moneyWhenSettled(h, accountId, 0);
  expect(after.availableMicros).toBe(before.availableMicros);
  expect(after.heldMicros).toBe(0n);
  expect(after.postedMicros).toBe(before.postedMicros);
  expect(after.records.map((r) => r.requestId)).toEqual(before.records.map((r) => r.requestId));
}

/** Resolves with `promise`, or rejects after `ms` (so a missing event fails the test instead of hanging it). */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
