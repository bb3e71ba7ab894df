/**
 * The built-in `sandbox` upstream (DESIGN.md 3): a real provider for demos and tests, so the gateway runs with
 * no vendor keys. Everything is deterministic: the same messages give the same reply, the same text the same
 * vector, the same query and documents the same scores. Nothing here calls the network.
 *
 * - chat: a reply picked from a fixed word list by a hash of the messages, capped by the output cap, with exact
 *   usage (tokens.ts). It never emits tool_calls: a request with `tools` still gets text, which is what a
 *   model that declines to call a tool does, so tool-calling flows need a real upstream.
 * - embeddings: hashed bag of words and word bigrams (FNV-1a 32, signed), L2-normalised (SPEC 2.2, 2.9).
 * - rerank: BM25 (k1 1.2, b 0.75), squashed to [0, 1) by x / (x + 1) (SPEC 2.4: a per-model scale).
 * - images: a real PNG of the asked pixels per image, one half-transparent colour taken from a hash of the prompt.
 */
import { createHash, randomUUID } from 'node:crypto';
import { dominantColour, solidPng } from '../image-codec/index.js';
import type { TokenCounter } from '../../domain/token-counter.js';
import type {
  ChatCall, ChatResult, ChatStream, EmbeddingCall, EmbeddingResult, ImageCall, ImageResult, RerankCall, RerankResult,
  StreamEvent, UpstreamProvider, Usage,
} from './index.js';
import { UpstreamError } from './index.js';
import { isRecord } from '../../is-record.js';
import type { CancelSignal } from '../../cancel-signal.js';

export interface SandboxOptions {
  /** The provider's name in the upstreams file; default `sandbox`. */
  name?: string;
  /** Native vector size of an upstream embedding model (SPEC 2.9), used when `dimensions` is not sent. */
  embeddingDimensions: (upstreamModel: string) => number;
  /** Pause between stream chunks, so a demo looks like a stream and tests can abort mid-way; default 0. */
  chunkDelayMs?: number;
  /** Counts usage as the gateway does, long text off the event loop. */
  tokens: TokenCounter;
}

const WORDS = [
  'gateway', 'tokens', 'stream', 'balance', 'model', 'route', 'upstream', 'ledger', 'request', 'catalog',
  'vector', 'query', 'answer', 'careful', 'quick', 'steady', 'bright', 'quiet', 'simple', 'useful',
  'returns', 'measures', 'checks', 'follows', 'keeps', 'sends', 'holds', 'settles', 'counts', 'serves',
  'every', 'each', 'one', 'the', 'a', 'this', 'that', 'with', 'for', 'from', 'into', 'after', 'before', 'while',
] as const;
const SENTENCES = 3;
const WORDS_PER_CHUNK = 3;
const BM25_K1 = 1.2;
const BM25_B = 0.75;
const utf8 = new TextEncoder();

function aborted(): UpstreamError {
  return new UpstreamError({ kind: 'aborted', message: 'the caller aborted the sandbox call' });
}

function rejected(message: string): UpstreamError {
  return new UpstreamError({ kind: 'http', status: 400, message });
}

/** FNV-1a 32 over the UTF-8 bytes; words are mostly ASCII, so that path avoids allocating. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) return fnv1a32Bytes(utf8.encode(text));
    hash = Math.imul(hash ^ code, 0x01000193);
  }
  return hash >>> 0;
}

function fnv1a32Bytes(bytes: Uint8Array): number {
  let hash = 0x811c9dc5;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193);
  return hash >>> 0;
}

/** mulberry32: a tiny seeded generator, so one hash picks a whole reply. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Lowercase word tokens: runs of Unicode letters, combining marks and digits. */
export function wordTokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{M}\p{N}]+/gu) ?? [];
}

function messagesOf(body: Record<string, unknown>): unknown[] {
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw rejected('messages: required');
  return body.messages;
}

function replyText(upstreamModel: string, messages: unknown[]): string {
  const random = seededRandom(fnv1a32(JSON.stringify(messages)));
  const sentences: string[] = [];
  for (let s = 0; s < SENTENCES; s += 1) {
    const length = 6 + Math.floor(random() * 6);
    const words = Array.from({ length }, () => WORDS[Math.floor(random() * WORDS.length)] ?? 'model');
    const sentence = words.join(' ');
    sentences.push(`${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`);
  }
  return `Sandbox reply (${upstreamModel}): ${sentences.join(' ')}`;
}

interface Reply {
  text: string;
  finishReason: 'stop' | 'length';
  usage: Usage;
}

async function reply(call: ChatCall, tokens: TokenCounter): Promise<Reply> {
  const full = replyText(call.upstreamModel, messagesOf(call.body));
  const [text = ''] = await tokens.truncate([full], call.maxOutputTokens);
  const [completionTokens = 0] = await tokens.count([text]);
  return {
    text,
    finishReason: text === full ? 'stop' : 'length',
    usage: { promptTokens: await tokens.promptTokens(call.body), completionTokens, cachedTokens: 0, reasoningTokens: 0 },
  };
}

function usageJson(usage: Usage): Record<string, unknown> {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}

/** Pieces of about three words; their concatenation is exactly `text`. */
function chunksOf(text: string): string[] {
  const words = text.match(/\s*\S+\s*/g) ?? [];
  const chunks: string[] = [];
  for (let i = 0; i < words.length; i += WORDS_PER_CHUNK) chunks.push(words.slice(i, i + WORDS_PER_CHUNK).join(''));
  return chunks;
}

function sleep(ms: number, signal: CancelSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(aborted());
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(aborted());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function newCompletionId(): string {
  return `chatcmpl-${randomUUID().replaceAll('-', '')}`;
}

export class SandboxProvider implements UpstreamProvider {
  readonly name: string;
  readonly streams = true;
  private readonly embeddingDimensions: (upstreamModel: string) => number;
  private readonly chunkDelayMs: number;
  private readonly tokens: TokenCounter;

  constructor(options: SandboxOptions) {
    this.name = options.name ?? 'sandbox';
    this.embeddingDimensions = options.embeddingDimensions;
    this.chunkDelayMs = options.chunkDelayMs ?? 0;
    this.tokens = options.tokens;
  }

  async chat(call: ChatCall): Promise<ChatResult> {
    if (call.signal.aborted) throw aborted();
    const { text, finishReason, usage } = await reply(call, this.tokens);
    const completion = {
      id: newCompletionId(),
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: call.upstreamModel,
      choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: finishReason }],
      usage: usageJson(usage),
    };
    return { completion, usage, cachedDiscountApplied: false };
  }

  /** OpenAI's chunk sequence: role, content pieces, finish_reason, then usage when `include_usage` asks. */
  async chatStream(call: ChatCall): Promise<ChatStream> {
    if (call.signal.aborted) throw aborted();
    const { text, finishReason, usage } = await reply(call, this.tokens);
    const options = call.body.stream_options;
    const includeUsage = isRecord(options) && options.include_usage === true;
    const base = { id: newCompletionId(), object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: call.upstreamModel };
    const extra = includeUsage ? { usage: null } : {};
    const choice = (delta: Record<string, unknown>, finish: string | null) => ({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra });
    const payloads: Record<string, unknown>[] = [
      choice({ role: 'assistant', content: '', refusal: null }, null),
      ...chunksOf(text).map((piece) => choice({ content: piece }, null)),
      choice({}, finishReason),
    ];
    if (includeUsage) payloads.push({ ...base, choices: [], usage: usageJson(usage) });
    return { events: this.emit(payloads, call.signal) };
  }

  private async *emit(payloads: Record<string, unknown>[], signal: CancelSignal): AsyncGenerator<StreamEvent> {
    for (const [i, payload] of payloads.entries()) {
      if (i > 0 && this.chunkDelayMs > 0) await sleep(this.chunkDelayMs, signal);
      if (signal.aborted) throw aborted();
      yield { data: JSON.stringify(payload) };
    }
  }

  async embed(call: EmbeddingCall): Promise<EmbeddingResult> {
    if (call.signal.aborted) throw aborted();
    const size = call.dimensions ?? this.embeddingDimensions(call.upstreamModel);
    if (!Number.isInteger(size) || size < 1) throw rejected(`dimensions: ${size} is not a vector size`);
    // Token ids are cl100k_base's (the only vocabulary a catalog row names): embedded as the text they spell.
    const decodeIds = call.input.some((item) => typeof item !== 'string') ? (await import('gpt-tokenizer/encoding/cl100k_base')).decode : null;
    const texts = call.input.map((item) => (typeof item === 'string' ? item : decodeIds!(item)));
    const vectors = texts.map((text) => embedText(text, size));
    const textTokens = await this.tokens.count(call.input.map((item) => (typeof item === 'string' ? item : '')));
    const promptTokens = call.input.reduce((sum, item, i) => sum + (typeof item === 'string' ? (textTokens[i] ?? 0) : item.length), 0);
    return { vectors, promptTokens };
  }

  /**
   * Images: one solid, half-transparent PNG per image, its colour derived from the prompt (so runs repeat); an edit
   * (references given) is painted in its first reference's dominant colour, so a caller can see it was read.
   */
  async image(call: ImageCall): Promise<ImageResult> {
    if (call.signal.aborted) throw aborted();
    const digest = createHash('sha256').update(`${call.upstreamModel}\n${call.prompt}`).digest();
    const edited = call.references[0] === undefined ? null : await dominantColour(call.references[0].bytes);
    const colour = (i: number) => edited ?? { r: digest[i % 32]!, g: digest[(i + 1) % 32]!, b: digest[(i + 2) % 32]! };
    const images = await Promise.all(
      Array.from({ length: call.n }, async (_, i) => ({ bytes: await solidPng(call.width, call.height, { ...colour(i), alpha: 0.5 }), mimeType: 'image/png' })),
    );
    return { images };
  }

  async rerank(call: RerankCall): Promise<RerankResult> {
    if (call.signal.aborted) throw aborted();
    const scores = bm25(wordTokens(call.query), call.documents.map(wordTokens));
    // Every document is scored; `topN` is the caller's cut (port contract).
    const results = scores.map((score, index) => ({ index, relevanceScore: score / (score + 1) }));
    // SPEC 4.1 rule 3 "as the model counts them": the rerank models are cross-encoders that read the query
    // beside each document, so the query counts once per document (the same count the gateway holds for).
    const [queryTokens = 0, ...documentTokens] = await this.tokens.count([call.query, ...call.documents]);
    const promptTokens = documentTokens.reduce((sum, n) => sum + queryTokens + n, 0);
    return { results, promptTokens };
  }
}

function addFeature(vector: Float64Array, feature: string): void {
  const hash = fnv1a32(feature);
  const index = hash % vector.length;
  // The top bit signs the feature, so collisions cancel on average instead of piling up (the hashing trick).
  vector[index] = (vector[index] ?? 0) + (hash & 0x80000000 ? -1 : 1);
}

/** Unit-length vector of the words and word bigrams; text with no words hashes as one feature. */
export function embedText(text: string, size: number): number[] {
  const vector = new Float64Array(size);
  const words = wordTokens(text);
  if (words.length === 0) addFeature(vector, text);
  for (const [i, word] of words.entries()) {
    addFeature(vector, word);
    const next = words[i + 1];
    if (next !== undefined) addFeature(vector, `${word} ${next}`);
  }
  let norm = Math.sqrt(vector.reduce((sum, v) => sum + v * v, 0));
  if (norm === 0) {
    // Every feature cancelled out (vanishingly rare): still a deterministic unit vector.
    vector[fnv1a32(text) % size] = 1;
    norm = 1;
  }
  return Array.from(vector, (v) => v / norm);
}

/** Okapi BM25 with Lucene's non-negative idf; unique query terms, so repeating a word does not double it. */
export function bm25(queryTerms: string[], documents: string[][]): number[] {
  const terms = [...new Set(queryTerms)];
  const count = documents.length;
  const avgLength = documents.reduce((sum, doc) => sum + doc.length, 0) / Math.max(count, 1) || 1;
  const frequencies = documents.map((doc) => {
    const tf = new Map<string, number>();
    for (const word of doc) tf.set(word, (tf.get(word) ?? 0) + 1);
    return tf;
  });
  const idf = new Map(terms.map((term) => {
    const having = frequencies.filter((tf) => tf.has(term)).length;
    return [term, Math.log(1 + (count - having + 0.5) / (having + 0.5))];
  }));
  return documents.map((doc, d) => {
    let score = 0;
    for (const term of terms) {
      const tf = frequencies[d]?.get(term) ?? 0;
      if (tf === 0) continue;
      const norm = tf + BM25_K1 * (1 - BM25_B + (BM25_B * doc.length) / avgLength);
      score += (idf.get(term) ?? 0) * ((tf * (BM25_K1 + 1)) / norm);
    }
    return score;
  });
}
