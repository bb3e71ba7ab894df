import { describe, expect, it } from 'vitest';
import { type StreamEvent, UpstreamError, type Usage } from '../../src/adapters/upstream/index.js';
import type { Charge } from '../../src/domain/billing/billing.js';
import type { PreparedChat } from '../../src/domain/chat/chat-service.js';
import {
  type StreamBilling,
  type StreamFrames,
  StreamSession,
  type StreamSessionDeps,
} from '../../src/domain/chat/stream-session.js';
import { PaidCall } from '../../src/domain/paid-call/paid-call.js';
import type { Route } from '../../src/domain/routing/route-table.js';
import { Canceller } from '../../src/lib/cancel-signal.js';
import { catalogRow } from '../setup/catalog-rows.js';
import { RecordingBilling, TEST_PRINCIPAL } from '../setup/recording-billing.js';

const text = (content: string): StreamEvent => ({ data: JSON.stringify({ choices: [{ delta: { content } }] }) });
const finish: StreamEvent = { data: JSON.stringify({ choices: [{ delta: {}, finish_reason: 'stop' }] }) };
const usageChunk: StreamEvent = {
  data: JSON.stringify({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } }),
};
const inStreamError: StreamEvent = { data: JSON.stringify({ error: { message: 'overloaded', code: 503 } }) };

/** The request's deadline (SPEC 8's budget, shortened): far enough for every test to open its stream. */
const DEADLINE_AT_MS = Date.now() + 60_000;

/** An upstream that accepts the stream and sends `events`, then `[DONE]` (or fails with `dies`). */
function route(name: string, events: StreamEvent[], dies?: UpstreamError): Route & { returned: () => boolean } {
  let returned = false;
  async function* stream(): AsyncGenerator<StreamEvent> {
    try {
      for (const event of events) yield event;
      if (dies !== undefined) throw dies;
    } finally {
      returned = true;
    }
  }
  return {
    provider: { name, streams: true, chatStream: async () => ({ events: stream() }) },
    providerName: name,
    upstreamModel: `${name}-model`,
    wholesale: { inputUsdPerMtok: 0, outputUsdPerMtok: 0 },
    cachedInputDiscount: false,
    returned: () => returned,
  };
}

/** What the stream's billing and frames did, in one ordered log. */
function recorder() {
  const log: string[] = [];
  const chat: StreamBilling = {
    release: async () => void log.push('release'),
    keepHold: () => {
      log.push('keep hold');
      return () => log.push('stop keeping hold');
    },
    countedUsage: async (_prepared, counted) => {
      log.push(`count "${counted}"`);
      return { promptTokens: 3, completionTokens: counted.length, cachedTokens: 0, reasoningTokens: 0 };
    },
    settleStream: async (_prepared, usage: Usage, settledOn: Route): Promise<Charge> => {
      log.push(`settle ${usage.promptTokens}+${usage.completionTokens} on ${settledOn.providerName}`);
      return { costMicros: 1n, costRubMicro: null, fxRateRubMicro: null, usageId: 'use_1' };
    },
    listCostEstimate: () => 42n,
  };
  const frames: StreamFrames = {
    open: () => log.push('open'),
    chunk: (event) => log.push(`chunk ${event.data}`),
    end: (usage, costMicros) => log.push(`end ${usage.completionTokens} cost ${costMicros}`),
    fail: (error) => log.push(`fail ${error.code}`),
    close: () => log.push('[DONE]'),
  };
  return { log, chat, frames };
}

/** A streamed chat prepared as ChatService.prepare leaves it: its money held, its chain routed. */
async function preparedChat(chain: Route[]): Promise<PreparedChat> {
  const { call } = await PaidCall.hold(
    new RecordingBilling(),
    { principal: TEST_PRINCIPAL, requestId: 'req_1', holdFor: () => 1_000n },
    async () => ({ tokens: 3 }),
  );
  return {
    entry: catalogRow({ slug: 'gpt-x', media_kind: 'text' }),
    chain,
    call,
    principal: TEST_PRINCIPAL,
    requestId: 'req_1',
    promptTokens: 3,
    images: { parts: [], tokens: 0 },
    maxTokens: undefined,
    maxOutputTokens: 100,
    stream: true,
    includeUsage: true,
    upstreamBody: { stream: true },
  };
}

async function session(
  chain: Route[],
  chat: StreamBilling,
  options: { clientGone?: Canceller; now?: () => number } = {},
) {
  const prepared = await preparedChat(chain);
  const recorded: { slug: string; outputTokens: number }[] = [];
  const deps: StreamSessionDeps = {
    chat,
    throughput: { record: (slug, sample) => recorded.push({ slug, outputTokens: sample.outputTokens }) > 0 },
    now: options.now ?? Date.now,
    firstTokenTimeoutMs: 1_000,
  };
  const hooks = { deadlineAtMs: DEADLINE_AT_MS, onExhausted: () => undefined };
  return { recorded, session: new StreamSession(prepared, hooks, options.clientGone ?? new Canceller(), deps) };
}

describe('StreamSession: the billing decisions of a stream (SPEC 3.4, 6.2)', () => {
  it('settles on done, durably before the last frames, on the usage the upstream reported', async () => {
    const { log, chat, frames } = recorder();
    const { session: s, recorded } = await session([route('a', [text('Hi'), usageChunk])], chat);
    await s.serve(frames);
    expect(log).toEqual([
      'keep hold',
      'open',
      `chunk ${text('Hi').data}`,
      `chunk ${usageChunk.data}`,
      'settle 5+2 on a',
      'end 2 cost 42',
      '[DONE]',
      'stop keeping hold',
    ]);
    expect(recorded).toEqual([{ slug: 'gpt-x', outputTokens: 2 }]);
  });

  it('counts the text itself when the upstream sent no usage (DESIGN.md 8)', async () => {
    const { log, chat, frames } = recorder();
    await (await session([route('a', [text('Hel'), text('lo'), finish])], chat)).session.serve(frames);
    expect(log.slice(-5)).toEqual(['count "Hello"', 'settle 3+5 on a', 'end 5 cost 42', '[DONE]', 'stop keeping hold']);
  });

  it('releases the hold before any byte when every route failed, then writes one error frame and [DONE]', async () => {
    const { log, chat, frames } = recorder();
    const silent = route('a', []);
    const refused = route('b', []);
    refused.provider = {
      name: 'b',
      streams: true,
      chatStream: () => Promise.reject(new UpstreamError({ kind: 'http', status: 503, message: 'down' })),
    };
    await (await session([silent, refused], chat)).session.serve(frames);
    expect(log).toEqual(['release', 'open', 'fail upstream_error', '[DONE]']);
  });

  it('fails over past an upstream that closed without a token: only the answering one is forwarded and billed', async () => {
    const { log, chat, frames } = recorder();
    await (await session([route('a', []), route('b', [text('ok'), usageChunk])], chat)).session.serve(frames);
    expect(log).toContain('settle 5+2 on b');
    expect(log.filter((line) => line.startsWith('chunk'))).toHaveLength(2);
  });

  it('an upstream that dies mid-stream ends with an error frame and [DONE], and is not billed', async () => {
    const { log, chat, frames } = recorder();
    const dies = new UpstreamError({ kind: 'connect', message: 'connection reset' });
    await (await session([route('a', [text('Hi')], dies)], chat)).session.serve(frames);
    expect(log).toEqual([
      'keep hold',
      'open',
      `chunk ${text('Hi').data}`,
      'fail upstream_error',
      '[DONE]',
      'release',
      'stop keeping hold',
    ]);
  });

  it('an error sent inside the stream ends it the same way', async () => {
    const { log, chat, frames } = recorder();
    await (await session([route('a', [text('Hi'), inStreamError, text('never')])], chat)).session.serve(frames);
    expect(log.slice(-4)).toEqual(['fail upstream_error', '[DONE]', 'release', 'stop keeping hold']);
    expect(log.some((line) => line.includes('never'))).toBe(false);
  });

  it('charges when the client left: the upstream is read to its end and what it sent is billed', async () => {
    const { log, chat, frames } = recorder();
    const clientGone = new Canceller();
    clientGone.abort('the client closed the connection');
    await (await session([route('a', [text('Hi'), text(' there'), usageChunk])], chat, { clientGone })).session.serve(
      frames,
    );
    expect(log).toContain('settle 5+2 on a');
    expect(log).not.toContain('release');
  });

  it('a client that left is read no longer than the deadline; what was read by then is billed', async () => {
    const { log, chat, frames } = recorder();
    const clientGone = new Canceller();
    clientGone.abort('the client closed the connection');
    const upstream = route('a', [text('Hi'), text(' there'), text(' never read')]);
    let nowMs = Date.now();
    const { session: s } = await session([upstream], chat, { clientGone, now: () => nowMs });
    const opened = frames.open;
    frames.open = () => {
      opened();
      nowMs = DEADLINE_AT_MS; // the deadline passes once the stream is open
    };
    await s.serve(frames);
    expect(log.filter((line) => line.startsWith('chunk'))).toHaveLength(2);
    expect(log).toContain('count "Hi there"');
    expect(log).toContain('settle 3+8 on a');
    expect(upstream.returned()).toBe(true);
  });
});
