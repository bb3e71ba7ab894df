/**
 * packages/sdk on the edges of the wire that a healthy gateway rarely shows: a lost answer, an overloaded moment,
 * a connection cut mid-stream. A local server speaks the gateway's wire format (native and compat envelopes,
 * `x-should-retry`, `Retry-After`, SSE) and misbehaves on cue, and records what the SDK sent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ComputeGateway, createEmbeddings, listOffers } from '../../packages/sdk/src/index.js';
import { gatewayFailure } from '../setup/gateway-error.js';

type Reply = (req: IncomingMessage, res: ServerResponse) => void;
let replies: Reply[] = [];
let seen: IncomingMessage[] = [];
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req);
    req.resume();
    req.on('end', () => (replies.shift() ?? fail(500, 'nothing scripted'))(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  replies = [];
  seen = [];
});

const nativeError =
  (status: number, code: string, headers: Record<string, string> = {}): Reply =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': 'req_edge', ...headers });
    res.end(JSON.stringify({ exception: status, data: { error: code, error_code: code, meta: {} }, message: code }));
  };
const fail = (status: number, code: string) => nativeError(status, code);
const json =
  (body: unknown): Reply =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
const cut: Reply = (req) => req.socket.destroy();
const embeddings = { object: 'list', data: [], model: 'm', usage: { prompt_tokens: 1, total_tokens: 1, cost: 0 } };

const gateway = (maxRetries = 2) =>
  new ComputeGateway({ baseUrl, apiKey: 'cgw_edge', retry: { maxRetries, baseDelayMs: 10 } });
const embed = (g: ComputeGateway) => g.call(createEmbeddings, { body: { model: 'm', input: 'hello' } });

describe('retries', () => {
  it('retries what the service calls retryable, with one idempotency key for every attempt', async () => {
    replies = [nativeError(503, 'upstream_unavailable', { 'x-should-retry': 'true' }), cut, json(embeddings)];
    expect((await embed(gateway())).object).toBe('list');
    const keys = seen.map((req) => req.headers['idempotency-key']);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('does not retry what the service says will fail again, and reads its envelope', async () => {
    replies = [nativeError(402, 'insufficient_balance', { 'x-should-retry': 'false' })];
    const error = await gatewayFailure(() => embed(gateway()));
    expect(seen).toHaveLength(1);
    expect(error).toMatchObject({ status: 402, code: 'insufficient_balance', requestId: 'req_edge', retryable: false });
  });

  it('waits as long as Retry-After asks before the next attempt', async () => {
    replies = [nativeError(429, 'rate_limit_exceeded', { 'retry-after': '1' }), json(embeddings)];
    const started = Date.now();
    await embed(gateway());
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('gives up after the last attempt with the last answer', async () => {
    replies = [fail(502, 'upstream_error'), fail(502, 'upstream_error')];
    const error = await gatewayFailure(() => embed(gateway(1)));
    expect(seen).toHaveLength(2);
    expect(error).toMatchObject({ status: 502, code: 'upstream_error', retryable: true });
  });

  it('reports a connection that never answers as connection_error, and sends no key on a GET', async () => {
    replies = [cut];
    const error = await gatewayFailure(() => gateway(0).call(listOffers));
    expect(error).toMatchObject({ status: 0, code: 'connection_error', retryable: true });
    expect(seen[0]?.headers['idempotency-key']).toBeUndefined();
  });

  it('reads the compat envelope and the request id header', async () => {
    replies = [
      (_req, res) => {
        res.writeHead(404, { 'content-type': 'application/json', 'x-request-id': 'req_compat' });
        res.end(
          JSON.stringify({
            error: { message: 'no such model', type: 'invalid_request_error', code: 'model_not_found' },
          }),
        );
      },
    ];
    const error = await gatewayFailure(() => embed(gateway()));
    expect(error).toMatchObject({
      status: 404,
      code: 'model_not_found',
      requestId: 'req_compat',
      message: 'no such model',
    });
  });
});

describe('streams', () => {
  const sse =
    (frames: string[], end: 'done' | 'cut' | 'close'): Reply =>
    (req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req_stream' });
      for (const frame of frames) res.write(`data: ${frame}\n\n`);
      if (end === 'done') res.end('data: [DONE]\n\n');
      else if (end === 'close') res.end();
      else setTimeout(() => req.socket.destroy(), 20);
    };
  const chunk = (content: string) =>
    JSON.stringify({
      id: 'c',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [{ index: 0, delta: { content }, finish_reason: null }],
    });
  const read = async () => {
    let text = '';
    for await (const c of gateway(0).streamChat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }))
      text += c.choices[0]?.delta.content ?? '';
    return text;
  };

  it('ends quietly on [DONE]', async () => {
    replies = [sse([chunk('Hel'), chunk('lo')], 'done')];
    expect(await read()).toBe('Hello');
  });

  it.each(['close', 'cut'] as const)('throws stream_truncated when the body ends (%s) before [DONE]', async (end) => {
    replies = [sse([chunk('Hel')], end)];
    const error = await gatewayFailure(read);
    expect(error).toMatchObject({ code: 'stream_truncated', requestId: 'req_stream', retryable: true });
  });
});
