/**
 * The behavioural contract of a chat and embeddings upstream (src/adapters/upstream/index.ts), run against the
 * sandbox (the twin every contract test uses) and the OpenAI-compatible provider (against the local fake upstream),
 * so the twin cannot drift from the real thing: text chat, streamed chat (chunks, usage at the end, the finish
 * reason), embeddings (dimensions, usage), and failures (an upstream's 5xx and 429, a stream that dies mid-way,
 * the caller leaving) as the same UpstreamFailure kinds, on which SPEC 7.2 classification depends.
 *
 * Each subject says how to provoke an upstream's failure (`failNext`); every assertion is shared.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type {
  ChatCall,
  ChatStream,
  EmbeddingCall,
  StreamEvent,
  UpstreamFailure,
  UpstreamProvider,
} from '../../src/adapters/upstream/index.js';
import type { SandboxFault } from '../../src/adapters/upstream/sandbox-faults.js';
import { Canceller, type CancelSignal } from '../../src/lib/cancel-signal.js';
import { failureOf, failureOrNull } from '../setup/upstream-failures.js';

/** A provider that serves chat, streamed chat and embeddings. */
export type ChatAndEmbeddingProvider = UpstreamProvider &
  Required<Pick<UpstreamProvider, 'chat' | 'chatStream' | 'embed'>>;

/** How an upstream fails: an HTTP error status, or a connection that breaks off after some events. */
export type UpstreamFault = SandboxFault;

export interface UpstreamUnderTest {
  provider: ChatAndEmbeddingProvider;
  /** The vector size of an embeddings call that sends no `dimensions`. */
  nativeDimensions: number;
  /** Makes the next call fail as an upstream would; the calls after it are answered normally. */
  failNext(fault: UpstreamFault): void;
  cleanup(): Promise<void>;
}

interface Chunk {
  id: string;
  object: string;
  model: string;
  choices: { index: number; delta: { role?: string; content?: string }; finish_reason: string | null }[];
  usage?: Record<string, number> | null;
}

const MODEL = 'conformance-model';
const MESSAGES = [{ role: 'user', content: 'Tell me about GPU rentals.' }];
const INPUTS = ['The cat sat on the mat.', 'GPU rental prices fell', 'Привет, мир'];
/** Calls here are bounded by their provider's budget only. */
const NO_DEADLINE = Number.MAX_SAFE_INTEGER;

const live = (): CancelSignal => new AbortController().signal;
const chatCall = (body: Record<string, unknown> = {}, signal = live()): ChatCall => ({
  upstreamModel: MODEL,
  body: { messages: MESSAGES, ...body },
  maxOutputTokens: 256,
  signal,
  deadlineAtMs: NO_DEADLINE,
});
const embeddingCall = (input: EmbeddingCall['input'], extra: Partial<EmbeddingCall> = {}): EmbeddingCall => ({
  upstreamModel: MODEL,
  input,
  signal: live(),
  deadlineAtMs: NO_DEADLINE,
  ...extra,
});

/** Reads a stream to its end: the chunks seen, and the failure it ended with (null: a clean end at `[DONE]`). */
async function drain(stream: ChatStream): Promise<{ chunks: Chunk[]; failure: UpstreamFailure | null }> {
  const chunks: Chunk[] = [];
  const failure = await failureOrNull(
    (async () => {
      for await (const event of stream.events) chunks.push(parse(event));
    })(),
  );
  return { chunks, failure };
}

function parse(event: StreamEvent): Chunk {
  expect(event.data).not.toBe('[DONE]');
  return JSON.parse(event.data) as Chunk;
}

const textOf = (chunks: Chunk[]): string => chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
const answerText = (completion: Record<string, unknown>): unknown =>
  (completion.choices as { message?: { content?: unknown } }[] | undefined)?.[0]?.message?.content;

export function upstreamConformance(name: string, make: () => Promise<UpstreamUnderTest>): void {
  describe(`Upstream provider conformance: ${name}`, () => {
    let subject: UpstreamUnderTest | undefined;
    beforeEach(async () => {
      subject = await make();
    });
    afterEach(async () => {
      await subject?.provider.close?.();
      await subject?.cleanup();
    });
    const current = (): UpstreamUnderTest => subject!;
    textChat(current);
    streamedChat(current);
    embeddings(current);
    upstreamFailures(current);
    cancellation(current);
  });
}

function textChat(subject: () => UpstreamUnderTest): void {
  it('chat: one assistant choice with text, finish_reason stop, for the model asked', async () => {
    const { completion } = await subject().provider.chat(chatCall());
    expect(completion).toMatchObject({ object: 'chat.completion', model: MODEL });
    expect(completion.id).toEqual(expect.any(String));
    const choices = completion.choices as unknown[];
    expect(choices).toHaveLength(1);
    expect(choices[0]).toMatchObject({ index: 0, message: { role: 'assistant' }, finish_reason: 'stop' });
    expect(answerText(completion)).toEqual(expect.stringMatching(/\S/));
  });

  it('chat: the usage read is the completion’s usage; no cached discount without cached tokens', async () => {
    const { completion, usage, cachedDiscountApplied } = await subject().provider.chat(chatCall());
    expect(usage).toEqual({
      promptTokens: expect.any(Number),
      completionTokens: expect.any(Number),
      cachedTokens: 0,
      reasoningTokens: 0,
    });
    expect(usage!.promptTokens).toBeGreaterThan(0);
    expect(usage!.completionTokens).toBeGreaterThan(0);
    expect(completion.usage).toMatchObject({
      prompt_tokens: usage!.promptTokens,
      completion_tokens: usage!.completionTokens,
      total_tokens: usage!.promptTokens + usage!.completionTokens,
    });
    expect(cachedDiscountApplied).toBe(false);
  });
}

function streamedChat(subject: () => UpstreamUnderTest): void {
  it('stream: chunks of one id and model, the assistant role first, [DONE] not passed on, a clean end', async () => {
    const { chunks, failure } = await drain(await subject().provider.chatStream(chatCall({ stream: true })));
    expect(failure).toBeNull();
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ object: 'chat.completion.chunk', model: MODEL, id: chunks[0]?.id });
      expect(chunk.usage).toBeUndefined();
    }
  });

  it('stream: the answer’s text in several content chunks, then one finish_reason, stop', async () => {
    const { provider } = subject();
    const answer = answerText((await provider.chat(chatCall())).completion);
    const { chunks } = await drain(await provider.chatStream(chatCall({ stream: true })));
    expect(textOf(chunks)).toBe(answer);
    expect(chunks.filter((chunk) => (chunk.choices[0]?.delta.content ?? '') !== '').length).toBeGreaterThan(1);
    const finishing = chunks.filter((chunk) => chunk.choices[0]?.finish_reason !== null);
    expect(finishing).toHaveLength(1);
    expect(finishing[0]?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.at(-1)).toBe(finishing[0]);
  });

  it('stream: with include_usage, a last chunk with no choices carries the answer’s usage', async () => {
    const { provider } = subject();
    const answered = await provider.chat(chatCall());
    const body = { stream: true, stream_options: { include_usage: true } };
    const { chunks, failure } = await drain(await provider.chatStream(chatCall(body)));
    expect(failure).toBeNull();
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: answered.completion.usage });
    expect(chunks.slice(0, -1).every((chunk) => (chunk.usage ?? null) === null)).toBe(true);
    expect(textOf(chunks)).toBe(answerText(answered.completion));
  });
}

function embeddings(subject: () => UpstreamUnderTest): void {
  it('embeddings: one vector per input, of the native size, in input order', async () => {
    const { provider, nativeDimensions } = subject();
    const { vectors } = await provider.embed(embeddingCall(INPUTS));
    expect(vectors).toHaveLength(INPUTS.length);
    for (const [i, input] of INPUTS.entries()) {
      expect(vectors[i]).toHaveLength(nativeDimensions);
      expect(vectors[i]!.every(Number.isFinite)).toBe(true);
      expect((await provider.embed(embeddingCall([input]))).vectors).toEqual([vectors[i]]);
    }
  });

  it('embeddings: dimensions sets the vector size', async () => {
    const { vectors } = await subject().provider.embed(embeddingCall(INPUTS, { dimensions: 4 }));
    expect(vectors.map((vector) => vector.length)).toEqual([4, 4, 4]);
  });

  it('embeddings: usage is the inputs’ prompt tokens, each counted once', async () => {
    const { provider } = subject();
    const { promptTokens } = await provider.embed(embeddingCall(INPUTS));
    let sum = 0;
    for (const input of INPUTS) sum += (await provider.embed(embeddingCall([input]))).promptTokens ?? Number.NaN;
    expect(promptTokens).toBeGreaterThan(0);
    expect(promptTokens).toBe(sum);
  });

  it('embeddings: token-id inputs get one vector each', async () => {
    const { vectors } = await subject().provider.embed(embeddingCall([[9906, 1917], [15339]]));
    expect(vectors).toHaveLength(2);
  });
}

/** Each kind of call, started; a stream counts as answered once it opened. */
const CALLS: [string, (provider: ChatAndEmbeddingProvider, signal?: CancelSignal) => Promise<unknown>][] = [
  ['chat', (provider, signal = live()) => provider.chat(chatCall({}, signal))],
  ['a stream’s opening', (provider, signal = live()) => provider.chatStream(chatCall({ stream: true }, signal))],
  ['embeddings', (provider, signal = live()) => provider.embed(embeddingCall(INPUTS, { signal }))],
];

function upstreamFailures(subject: () => UpstreamUnderTest): void {
  it.each(CALLS)('an upstream 5xx fails %s as http with its status; the next call is answered', async (_, start) => {
    const { provider, failNext } = subject();
    failNext({ status: 503 });
    const failure = await failureOf(start(provider));
    expect(failure).toMatchObject({ kind: 'http', status: 503, message: expect.stringMatching(/\S/) });
    expect(failure).not.toHaveProperty('retryAfterSec');
    expect(failure).not.toHaveProperty('contentFilter');
    await start(provider);
  });

  it.each(CALLS)('an upstream 429 fails %s as http 429 with its Retry-After', async (_, start) => {
    const { provider, failNext } = subject();
    failNext({ status: 429, retryAfterSec: 7 });
    expect(await failureOf(start(provider))).toMatchObject({ kind: 'http', status: 429, retryAfterSec: 7 });
  });

  it('a stream that dies mid-way: the events before the break, then bad_response, never a clean end', async () => {
    const { provider, failNext } = subject();
    failNext({ dieAfterChunks: 2 });
    const { chunks, failure } = await drain(await provider.chatStream(chatCall({ stream: true })));
    expect(chunks).toHaveLength(2);
    expect(failure).toMatchObject({ kind: 'bad_response' });
    expect((await drain(await provider.chatStream(chatCall({ stream: true })))).failure).toBeNull();
  });

  it('an answer that breaks off before it is whole: bad_response', async () => {
    const { provider, failNext } = subject();
    failNext({ dieAfterChunks: 0 });
    expect(await failureOf(provider.chat(chatCall()))).toMatchObject({ kind: 'bad_response' });
  });
}

function cancellation(subject: () => UpstreamUnderTest): void {
  it.each(CALLS)('a caller that already left: %s fails as aborted', async (_, start) => {
    expect(await failureOf(start(subject().provider, AbortSignal.abort()))).toMatchObject({ kind: 'aborted' });
  });

  it('the caller leaving mid-stream: the next read fails as aborted, whatever had arrived', async () => {
    const controller = new Canceller();
    const stream = await subject().provider.chatStream(chatCall({ stream: true }, controller));
    const iterator = stream.events[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    controller.abort(new Error('the client left'));
    expect(await failureOf(iterator.next())).toMatchObject({ kind: 'aborted' });
  });

  it('a consumer that stops early ends the stream; the provider answers the next call', async () => {
    const { provider } = subject();
    for await (const event of (await provider.chatStream(chatCall({ stream: true }))).events) {
      expect(parse(event).choices[0]?.delta.role).toBe('assistant');
      break;
    }
    expect((await drain(await provider.chatStream(chatCall({ stream: true })))).failure).toBeNull();
  });
}
