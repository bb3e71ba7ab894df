import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { dominantColour, solidImage } from '../../src/adapters/image-codec/sharp-images.js';
import { InProcessTokenWork } from '../../src/adapters/tokenizer/in-process.js';
import { type ChatCall, type StreamEvent, UpstreamError } from '../../src/adapters/upstream/index.js';
import { bm25, SandboxProvider } from '../../src/adapters/upstream/sandbox.js';
import { SANDBOX_REFERENCE_MAX_PIXELS } from '../../src/adapters/upstream/sandbox-reference.js';
import { TokenCounter } from '../../src/domain/text/token-counter.js';
import { countTokens, estimatePromptTokens } from '../../src/lib/token-count.js';

const tokens = new TokenCounter(new InProcessTokenWork());

/** Calls here are bounded by their provider's budget only. */
const NO_DEADLINE = Number.MAX_SAFE_INTEGER;

const NATIVE = 64;
const sandbox = new SandboxProvider({ embeddingDimensions: (model) => (model === 'wide' ? 3072 : NATIVE), tokens });
const live = () => new AbortController().signal;

const MESSAGES = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'Tell me about GPUs.' },
];

function chatCall(body: Record<string, unknown>, signal = live(), maxOutputTokens = 4096): ChatCall {
  return {
    upstreamModel: 'sandbox-chat',
    body: { messages: MESSAGES, ...body },
    maxOutputTokens,
    signal,
    deadlineAtMs: NO_DEADLINE,
  };
}

interface Chunk {
  id: string;
  object: string;
  model: string;
  choices: { index: number; delta: { role?: string; content?: string }; finish_reason: string | null }[];
  usage?: Record<string, number> | null;
}

async function collect(events: AsyncIterable<StreamEvent>): Promise<Chunk[]> {
  const chunks: Chunk[] = [];
  for await (const event of events) chunks.push(JSON.parse(event.data) as Chunk);
  return chunks;
}

function contentOf(result: { completion: Record<string, unknown> }): string {
  const choices = result.completion.choices as { message: { content: string } }[];
  return choices[0]?.message.content ?? '';
}

async function expectUpstreamError(promise: Promise<unknown>, kind: string): Promise<void> {
  const error = await promise.then(
    () => null,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  expect((error as UpstreamError).failure.kind).toBe(kind);
}

const cosine = (a: number[], b: number[]) => a.reduce((sum, v, i) => sum + v * (b[i] ?? 0), 0);
const norm = (v: number[]) => Math.sqrt(cosine(v, v));

describe('SandboxProvider: identity', () => {
  it('is named sandbox by default, streams, and takes a name from the upstreams file', () => {
    expect(sandbox.name).toBe('sandbox');
    expect(sandbox.streams).toBe(true);
    expect(new SandboxProvider({ name: 'demo', embeddingDimensions: () => 8, tokens }).name).toBe('demo');
  });
});

describe('SandboxProvider.chat', () => {
  it('answers an OpenAI-shaped completion with a deterministic reply', async () => {
    const first = await sandbox.chat(chatCall({}));
    const second = await sandbox.chat(chatCall({}));
    expect(contentOf(first)).toBe(contentOf(second));
    expect(contentOf(first)).toMatch(/^Sandbox reply \(sandbox-chat\): [A-Z].+\.$/);
    expect(first.completion).toMatchObject({ object: 'chat.completion', model: 'sandbox-chat' });
    expect(first.completion.id).toMatch(/^chatcmpl-/);
    expect(Number.isInteger(first.completion.created)).toBe(true);
    const choices = first.completion.choices as unknown[];
    expect(choices).toHaveLength(1);
    expect(choices[0]).toMatchObject({ index: 0, message: { role: 'assistant' }, finish_reason: 'stop' });
  });

  it('derives the reply from the messages', async () => {
    const other = await sandbox.chat({
      ...chatCall({}),
      body: { messages: [{ role: 'user', content: 'Something else entirely' }] },
    });
    expect(contentOf(other)).not.toBe(contentOf(await sandbox.chat(chatCall({}))));
  });

  it('reports exact usage: prompt by estimatePromptTokens, completion by countTokens', async () => {
    const result = await sandbox.chat(chatCall({}));
    const prompt = estimatePromptTokens({ messages: MESSAGES });
    const completion = countTokens(contentOf(result));
    expect(result.completion.usage).toMatchObject({
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
    });
    expect(result.usage).toEqual({
      promptTokens: prompt,
      completionTokens: completion,
      cachedTokens: 0,
      reasoningTokens: 0,
    });
    expect(result.cachedDiscountApplied).toBe(false);
  });

  it('caps the reply at the call’s output cap and says length', async () => {
    const full = contentOf(await sandbox.chat(chatCall({})));
    const capped = await sandbox.chat(chatCall({}, live(), 5));
    const text = contentOf(capped);
    expect(full.startsWith(text)).toBe(true);
    expect(countTokens(text)).toBeLessThanOrEqual(5);
    expect(capped.usage?.completionTokens).toBe(countTokens(text));
    expect((capped.completion.choices as { finish_reason: string }[])[0]?.finish_reason).toBe('length');
  });

  it('answers text even when tools are offered', async () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }];
    const result = await sandbox.chat(chatCall({ tools, tool_choice: 'auto' }));
    const message = (result.completion.choices as { message: Record<string, unknown> }[])[0]?.message;
    expect(message?.tool_calls).toBeUndefined();
    expect(typeof message?.content).toBe('string');
  });

  it('fails like an upstream on a body without messages, and as aborted when the caller left', async () => {
    const error = await sandbox
      .chat({ upstreamModel: 'm', body: {}, maxOutputTokens: 16, signal: live(), deadlineAtMs: NO_DEADLINE })
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).failure).toMatchObject({ kind: 'http', status: 400 });
    await expectUpstreamError(sandbox.chat(chatCall({}, AbortSignal.abort())), 'aborted');
  });
});

describe('SandboxProvider.chatStream', () => {
  it('streams the same text in several OpenAI chunks, role first, finish_reason last', async () => {
    const text = contentOf(await sandbox.chat(chatCall({})));
    const chunks = await collect((await sandbox.chatStream(chatCall({ stream: true }))).events);
    expect(chunks.length).toBeGreaterThan(4);
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ object: 'chat.completion.chunk', model: 'sandbox-chat', id: chunks[0]?.id });
      expect(chunk).not.toHaveProperty('usage');
    }
    const contentChunks = chunks.filter((c) => (c.choices[0]?.delta.content ?? '') !== '');
    expect(contentChunks.length).toBeGreaterThan(2);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(text);
    expect(chunks.at(-1)?.choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    expect(chunks.slice(0, -1).every((c) => c.choices[0]?.finish_reason === null)).toBe(true);
  });

  it('ends with a usage chunk (choices: []) when stream_options.include_usage is set', async () => {
    const result = await sandbox.chat(chatCall({}));
    const chunks = await collect(
      (await sandbox.chatStream(chatCall({ stream: true, stream_options: { include_usage: true } }))).events,
    );
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    expect(last?.usage).toMatchObject(result.completion.usage as Record<string, number>);
    expect(last?.usage?.completion_tokens).toBe(countTokens(contentOf(result)));
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
  });

  it('says length when the output cap cut the streamed reply', async () => {
    const chunks = await collect(
      (await sandbox.chatStream(chatCall({ stream: true, stream_options: { include_usage: true } }, live(), 4))).events,
    );
    const streamed = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe('length');
    expect(chunks.at(-1)?.usage?.completion_tokens).toBe(countTokens(streamed));
    expect(countTokens(streamed)).toBeLessThanOrEqual(4);
  });

  it('refuses to start for a caller that already left', async () => {
    await expectUpstreamError(sandbox.chatStream(chatCall({}, AbortSignal.abort())), 'aborted');
  });

  it('stops mid-stream with aborted when the caller aborts, also while waiting between chunks', async () => {
    const slow = new SandboxProvider({ embeddingDimensions: () => 8, chunkDelayMs: 20, tokens });
    const controller = new AbortController();
    const iterator = (await slow.chatStream(chatCall({ stream: true }, controller.signal))).events[
      Symbol.asyncIterator
    ]();
    expect((await iterator.next()).done).toBe(false);
    const waiting = iterator.next();
    controller.abort();
    await expectUpstreamError(waiting, 'aborted');
  });

  it('checks the signal between chunks without a delay too', async () => {
    const controller = new AbortController();
    const iterator = (await sandbox.chatStream(chatCall({ stream: true }, controller.signal))).events[
      Symbol.asyncIterator
    ]();
    await iterator.next();
    controller.abort();
    await expectUpstreamError(iterator.next(), 'aborted');
  });
});

describe('SandboxProvider.embed', () => {
  const embed = (input: string[], extra: { dimensions?: number; upstreamModel?: string } = {}) =>
    sandbox.embed({
      upstreamModel: extra.upstreamModel ?? 'emb',
      input,
      signal: live(),
      deadlineAtMs: NO_DEADLINE,
      ...(extra.dimensions === undefined ? {} : { dimensions: extra.dimensions }),
    });

  it('returns one unit vector per input, in order, of the native size', async () => {
    const inputs = ['The cat sat on the mat.', 'Stock prices fell sharply today.', '!!!', 'Ünïcödé wörds 42'];
    const { vectors } = await embed(inputs);
    expect(vectors).toHaveLength(inputs.length);
    for (const vector of vectors) {
      expect(vector).toHaveLength(NATIVE);
      expect(Math.abs(norm(vector) - 1)).toBeLessThan(1e-9);
    }
    expect((await embed(['x'], { upstreamModel: 'wide' })).vectors[0]).toHaveLength(3072);
  });

  it('gives identical text an identical vector, and case and punctuation do not matter', async () => {
    const { vectors } = await embed(['GPU rental market', 'GPU rental market', 'gpu, RENTAL; market!']);
    expect(vectors[1]).toEqual(vectors[0]);
    expect(vectors[2]).toEqual(vectors[0]);
  });

  it('puts similar texts closer than unrelated ones', async () => {
    const [a, b, c] = (
      await embed([
        'the quick brown fox jumps over the lazy dog',
        'a quick brown fox jumped over a lazy dog',
        'quarterly revenue grew in the european region',
      ])
    ).vectors as [number[], number[], number[]];
    expect(cosine(a, b)).toBeGreaterThan(cosine(a, c));
    expect(cosine(a, b)).toBeGreaterThan(0.3);
  });

  it('honours dimensions', async () => {
    const { vectors } = await embed(['short vectors please'], { dimensions: 16 });
    expect(vectors[0]).toHaveLength(16);
    expect(Math.abs(norm(vectors[0] ?? []) - 1)).toBeLessThan(1e-9);
  });

  it('counts prompt tokens with tokens.ts', async () => {
    const inputs = ['hello world', 'Привет, мир'];
    expect((await embed(inputs)).promptTokens).toBe(countTokens(inputs[0] ?? '') + countTokens(inputs[1] ?? ''));
  });

  it('fails as aborted when the caller left', async () => {
    await expectUpstreamError(
      sandbox.embed({ upstreamModel: 'emb', input: ['x'], signal: AbortSignal.abort(), deadlineAtMs: NO_DEADLINE }),
      'aborted',
    );
  });
});

describe('SandboxProvider.rerank', () => {
  const documents = [
    'Bananas are yellow fruit rich in potassium.',
    'GPU rental prices drop when more providers connect their machines.',
    'The weather in Oslo is cold in winter.',
    '',
  ];
  const rerank = (query: string, docs = documents) =>
    sandbox.rerank({ upstreamModel: 'rr', query, documents: docs, topN: 1, signal: live(), deadlineAtMs: NO_DEADLINE });

  it('scores every document and ranks the matching one first', async () => {
    const { results } = await rerank('cheap GPU rental prices');
    expect(results.map((r) => r.index).sort()).toEqual([0, 1, 2, 3]);
    const best = [...results].sort((a, b) => b.relevanceScore - a.relevanceScore)[0];
    expect(best?.index).toBe(1);
  });

  it('keeps scores in [0, 1): no shared term scores 0, more matches score higher', async () => {
    const { results } = await rerank('gpu rental prices providers');
    for (const { relevanceScore } of results) {
      expect(relevanceScore).toBeGreaterThanOrEqual(0);
      expect(relevanceScore).toBeLessThan(1);
    }
    expect(results[0]?.relevanceScore).toBe(0);
    const weaker = (await rerank('gpu')).results[1]?.relevanceScore ?? 0;
    expect(results[1]?.relevanceScore).toBeGreaterThan(weaker);
  });

  it('is deterministic', async () => {
    expect(await rerank('winter weather')).toEqual(await rerank('winter weather'));
  });

  it('counts the query beside every document, plus the documents', async () => {
    const { promptTokens } = await rerank('gpu prices');
    const expected = documents.reduce((sum, doc) => sum + countTokens('gpu prices') + countTokens(doc), 0);
    expect(promptTokens).toBe(expected);
  });

  it('fails as aborted when the caller left', async () => {
    await expectUpstreamError(
      sandbox.rerank({
        upstreamModel: 'rr',
        query: 'q',
        documents: ['d'],
        signal: AbortSignal.abort(),
        deadlineAtMs: NO_DEADLINE,
      }),
      'aborted',
    );
  });
});

describe('bm25', () => {
  it('matches the formula on a one-document corpus (k1 1.2, b 0.75, Lucene idf)', () => {
    // N = 1, n = 1: idf = ln(1 + 0.5 / 1.5); tf = 1 and dl = avgdl, so the tf part is 1.
    expect(bm25(['a'], [['a']])[0]).toBeCloseTo(Math.log(4 / 3), 12);
  });

  it('prefers the shorter document for the same term frequency', () => {
    const [short, long] = bm25(
      ['gpu'],
      [
        ['gpu', 'x'],
        ['gpu', 'x', 'y', 'z', 'w', 'v'],
      ],
    );
    expect(short).toBeGreaterThan(long ?? 0);
  });
});

/** A real PNG of `width` × `height`, one colour (sharp renders it; kept small enough to be quick). */
const solidPng = (width: number, height: number, colour: { r: number; g: number; b: number }) =>
  solidImage(width, height, { ...colour, alpha: 1 }, 'png');

/**
 * A PNG whose header says `width` × `height` and whose pixels are those of a 1×1 image: a giant in its metadata
 * that a decoder would find truncated, so a refusal that names its size shows that nothing was decoded.
 */
async function pngClaiming(width: number, height: number): Promise<Buffer> {
  const png = Buffer.from(await solidPng(1, 1, { r: 0, g: 0, b: 0 }));
  // Signature (8), IHDR length (4) and type (4), then width and height; the CRC covers type and 13 bytes of data.
  png.writeUInt32BE(width, 16);
  png.writeUInt32BE(height, 20);
  png.writeUInt32BE(crc32(png.subarray(12, 29)), 29);
  return png;
}

describe('image edits read their reference at a bounded size', () => {
  const edit = (reference: Buffer) =>
    sandbox.image({
      upstreamModel: 'sandbox-image',
      prompt: 'a cat',
      n: 1,
      width: 8,
      height: 8,
      aspectRatio: null,
      references: [{ bytes: reference, mimeType: 'image/png', url: 'http://ref' }],
      signal: live(),
      deadlineAtMs: NO_DEADLINE,
    });
  const colourOf = async (png: Buffer) => (await sharp(png).stats()).dominant;

  it('paints the edit in the colour of a large reference, read from a thumbnail', async () => {
    const reference = await solidPng(3000, 2000, { r: 16, g: 200, b: 32 });
    const [image] = (await edit(reference)).images;
    expect(await colourOf(image!.bytes)).toEqual(await colourOf(reference));
    expect(await colourOf(image!.bytes)).not.toEqual(
      await colourOf((await edit(await solidPng(30, 20, { r: 200, g: 16, b: 32 }))).images[0]!.bytes),
    );
  });

  it('a 16000² reference is refused from its header: a 400 naming its size, no pixel decoded', async () => {
    const error = await edit(await pngClaiming(16_000, 16_000)).then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).failure).toMatchObject({
      kind: 'http',
      status: 400,
      message: expect.stringContaining('16000×16000'),
    });
  });

  it('one within the pixel limit that does not decode is refused too (400), not thrown as a crash', async () => {
    const error = await edit(await pngClaiming(4_000, 4_000)).then(
      () => null,
      (err: unknown) => err,
    );
    expect((error as UpstreamError).failure).toMatchObject({
      kind: 'http',
      status: 400,
      message: expect.stringContaining('could not be decoded'),
    });
  });

  it('the thumbnail itself refuses more pixels than its limit, whatever the caller checked', async () => {
    await expect(dominantColour(await solidPng(300, 200, { r: 1, g: 2, b: 3 }), 300 * 200 - 1)).rejects.toThrow(
      /pixel limit/,
    );
    expect(SANDBOX_REFERENCE_MAX_PIXELS).toBeLessThan(16_000 * 16_000);
  });
});
