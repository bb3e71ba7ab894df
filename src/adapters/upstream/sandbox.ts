/**
 * The built-in `sandbox` upstream (DESIGN.md 3): a real provider for demos and tests, so the gateway runs with
 * no vendor keys. Everything is deterministic: the same messages give the same reply, the same text the same
 * vector, the same query and documents the same scores. Nothing here calls the network.
 *
 * - chat: a reply picked from a fixed word list by a hash of the messages, capped by the output cap, with exact
 *   usage (lib/token-count.ts). It never emits tool_calls: a request with `tools` still gets text, which is what a
 *   model that declines to call a tool does, so tool-calling flows need a real upstream.
 * - embeddings: hashed bag of words and word bigrams (FNV-1a 32, signed), L2-normalised (SPEC 2.2, 2.9).
 * - rerank: BM25 (k1 1.2, b 0.75), squashed to [0, 1) by x / (x + 1) (SPEC 2.4: a per-model scale).
 * - images: a real PNG of the asked pixels per image, one half-transparent colour taken from a hash of the prompt.
 * - speech (a media task): a WAV or MP3 tone as long as the text would take to read (15 characters a second), its
 *   pitch taken from the voice; music: `tracks` tones of `duration` seconds, pitched by the prompt; video: an H.264
 *   MP4 (MOV by remux) of the resolution and aspect asked, `duration` seconds at 6 frames a second, a drifting
 *   gradient coloured by the prompt, silent (encoded on a worker thread); restoration: an image, or a clip as long as
 *   its source, of the output size planned, in the container asked. The task id carries the call and its start, so any process can answer a poll
 *   (after a restart too); a task is `running` for its first SANDBOX_RENDER_MS, so callers see a job in progress.
 * - failures: only the caller's abort and invalid input, unless told to play an upstream's by failNext
 *   (sandbox-faults.ts), so the twin is held to the HTTP providers' failure kinds.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { CancelSignal } from '../../lib/cancel-signal.js';
import { isRecord } from '../../lib/is-record.js';
import { encodeAudio, tone } from '../audio-codec/audio-files.js';
import { AUDIO_MIME, type AudioFormat } from '../audio-codec/index.js';
import { solidImage } from '../image-codec/sharp-images.js';
import type { TokenWork } from '../tokenizer/index.js';
import { type ClipEncoder, remuxToMov } from '../video-codec/video-files.js';
import type {
  ChatCall,
  ChatResult,
  ChatStream,
  EmbeddingCall,
  EmbeddingResult,
  ImageCall,
  ImageResult,
  MediaCall,
  MediaKind,
  MediaTaskState,
  RerankCall,
  RerankResult,
  StreamEvent,
  UpstreamProvider,
  Usage,
} from './index.js';
import { UpstreamError } from './index.js';
import { brokeOff, type SandboxFault, SandboxFaults } from './sandbox-faults.js';
import { referenceColour } from './sandbox-reference.js';

export interface SandboxOptions {
  /** The provider's name in the upstreams file; default `sandbox`. */
  name?: string;
  /** Native vector size of an upstream embedding model (SPEC 2.9), used when `dimensions` is not sent. */
  embeddingDimensions: (upstreamModel: string) => number;
  /** Pause between stream chunks, so a demo looks like a stream and tests can abort mid-way; default 0. */
  chunkDelayMs?: number;
  /** Counts usage as the gateway does, long text off the event loop (the gateway's TokenCounter). */
  tokens: SandboxTokens;
  /** Encodes video clips; without one the sandbox renders no video. */
  clips?: ClipEncoder;
}

/** The token work the sandbox does: the tokenizer port's, minus its lifetime (the caller owns that). */
export type SandboxTokens = Pick<TokenWork, 'promptTokens' | 'count' | 'truncate'>;

const WORDS = [
  'gateway',
  'tokens',
  'stream',
  'balance',
  'model',
  'route',
  'upstream',
  'ledger',
  'request',
  'catalog',
  'vector',
  'query',
  'answer',
  'careful',
  'quick',
  'steady',
  'bright',
  'quiet',
  'simple',
  'useful',
  'returns',
  'measures',
  'checks',
  'follows',
  'keeps',
  'sends',
  'holds',
  'settles',
  'counts',
  'serves',
  'every',
  'each',
  'one',
  'the',
  'a',
  'this',
  'that',
  'with',
  'for',
  'from',
  'into',
  'after',
  'before',
  'while',
] as const;
const SENTENCES = 3;
const WORDS_PER_CHUNK = 3;
const BM25_K1 = 1.2;
const BM25_B = 0.75;
const utf8 = new TextEncoder();

/** How long a sandbox media task stays `running`. */
const SANDBOX_RENDER_MS = 300;
/** Speech is rendered as long as reading the text aloud would take. */
const SPEECH_CHARS_PER_SECOND = 15;
/** Sandbox clips are a slide show: enough frames to move, few enough to encode in a moment. */
const VIDEO_FPS = 6;

/** A clip's pixels from its resolution label and aspect ratio (the short side is the label's lines). */
function frameSize(params: Record<string, unknown>): { width: number; height: number } {
  const height = heightOf(String(params.resolution));
  const [w = 16, h = 9] = String(params.aspect_ratio ?? '16:9')
    .split(':')
    .map(Number);
  const ratio = Number.isFinite(w / h) && w > 0 && h > 0 ? w / h : 16 / 9;
  const even = (n: number) => Math.max(2, 2 * Math.round(n / 2));
  return ratio >= 1
    ? { width: even(height * ratio), height: even(height) }
    : { width: even(height), height: even(height / ratio) };
}

/** Picture height of a resolution label: `720p` → 720, `4k` → 2160. */
function heightOf(resolution: string): number {
  if (resolution === '4k') return 2160;
  const lines = /^(\d+)p$/.exec(resolution)?.[1];
  return lines === undefined ? 720 : Number(lines);
}

interface SandboxTask {
  kind: string;
  format: string;
  params: Record<string, unknown>;
  startedAtMs: number;
}

function parseTask(taskId: string): SandboxTask {
  try {
    const task = JSON.parse(Buffer.from(taskId.replace(/^sbx_/, ''), 'base64url').toString()) as unknown;
    if (
      isRecord(task) &&
      typeof task.format === 'string' &&
      isRecord(task.params) &&
      typeof task.startedAtMs === 'number'
    )
      return task as unknown as SandboxTask;
  } catch {
    // falls through: not one of ours
  }
  throw new UpstreamError({ kind: 'http', status: 404, message: 'sandbox: no such task' });
}

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

async function reply(call: ChatCall, tokens: SandboxTokens): Promise<Reply> {
  const full = replyText(call.upstreamModel, messagesOf(call.body));
  const [text = ''] = await tokens.truncate([full], call.maxOutputTokens);
  const [completionTokens = 0] = await tokens.count([text]);
  return {
    text,
    finishReason: text === full ? 'stop' : 'length',
    usage: {
      promptTokens: await tokens.promptTokens(call.body),
      completionTokens,
      cachedTokens: 0,
      reasoningTokens: 0,
    },
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
  private readonly tokens: SandboxTokens;
  private readonly clips: ClipEncoder | undefined;
  private readonly faults = new SandboxFaults();

  constructor(options: SandboxOptions) {
    this.name = options.name ?? 'sandbox';
    this.embeddingDimensions = options.embeddingDimensions;
    this.chunkDelayMs = options.chunkDelayMs ?? 0;
    this.tokens = options.tokens;
    this.clips = options.clips;
    const clips = options.clips === undefined ? [] : ['mp4', 'mov'];
    this.mediaFormats = {
      audio: ['wav', 'mp3'],
      music: ['wav', 'mp3'],
      restoration: ['png', 'jpeg', 'tiff', ...clips],
      ...(clips.length === 0 ? {} : { video: clips }),
    };
  }

  /** Makes the coming chat, stream, embeddings, rerank or image calls fail, one fault each (sandbox-faults.ts). */
  failNext(...faults: SandboxFault[]): void {
    this.faults.add(faults);
  }

  /** Plays the call's fault, if one is queued, on a call that answers all at once. */
  private playFault(): void {
    if (this.faults.take() !== null) throw brokeOff();
  }

  async chat(call: ChatCall): Promise<ChatResult> {
    if (call.signal.aborted) throw aborted();
    this.playFault();
    const { text, finishReason, usage } = await reply(call, this.tokens);
    const completion = {
      id: newCompletionId(),
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: call.upstreamModel,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: text, refusal: null },
          logprobs: null,
          finish_reason: finishReason,
        },
      ],
      usage: usageJson(usage),
    };
    return { completion, usage, cachedDiscountApplied: false };
  }

  /** OpenAI's chunk sequence: role, content pieces, finish_reason, then usage when `include_usage` asks. */
  async chatStream(call: ChatCall): Promise<ChatStream> {
    if (call.signal.aborted) throw aborted();
    const dieAfterChunks = this.faults.take();
    const { text, finishReason, usage } = await reply(call, this.tokens);
    const options = call.body.stream_options;
    const includeUsage = isRecord(options) && options.include_usage === true;
    const base = {
      id: newCompletionId(),
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model: call.upstreamModel,
    };
    const extra = includeUsage ? { usage: null } : {};
    const choice = (delta: Record<string, unknown>, finish: string | null) => ({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...extra,
    });
    const payloads: Record<string, unknown>[] = [
      choice({ role: 'assistant', content: '', refusal: null }, null),
      ...chunksOf(text).map((piece) => choice({ content: piece }, null)),
      choice({}, finishReason),
    ];
    if (includeUsage) payloads.push({ ...base, choices: [], usage: usageJson(usage) });
    return { events: this.emit(payloads, call.signal, dieAfterChunks) };
  }

  private async *emit(
    payloads: Record<string, unknown>[],
    signal: CancelSignal,
    dieAfterChunks: number | null,
  ): AsyncGenerator<StreamEvent> {
    for (const [i, payload] of payloads.entries()) {
      if (i > 0 && this.chunkDelayMs > 0) await sleep(this.chunkDelayMs, signal);
      if (signal.aborted) throw aborted();
      if (i === dieAfterChunks) throw brokeOff();
      yield { data: JSON.stringify(payload) };
    }
    // A break after more events than the reply has still comes before `[DONE]`.
    if (dieAfterChunks !== null) throw brokeOff();
  }

  async embed(call: EmbeddingCall): Promise<EmbeddingResult> {
    if (call.signal.aborted) throw aborted();
    this.playFault();
    const size = call.dimensions ?? this.embeddingDimensions(call.upstreamModel);
    if (!Number.isInteger(size) || size < 1) throw rejected(`dimensions: ${size} is not a vector size`);
    // Token ids are cl100k_base's (the only vocabulary a catalog row names): embedded as the text they spell.
    const decodeIds = call.input.some((item) => typeof item !== 'string')
      ? (await import('gpt-tokenizer/encoding/cl100k_base')).decode
      : null;
    const texts = call.input.map((item) => (typeof item === 'string' ? item : decodeIds!(item)));
    const vectors = texts.map((text) => embedText(text, size));
    const textTokens = await this.tokens.count(call.input.map((item) => (typeof item === 'string' ? item : '')));
    const promptTokens = call.input.reduce(
      (sum, item, i) => sum + (typeof item === 'string' ? (textTokens[i] ?? 0) : item.length),
      0,
    );
    return { vectors, promptTokens };
  }

  /**
   * Images: one solid, half-transparent PNG per image, its colour derived from the prompt (so runs repeat); an edit
   * (references given) is painted in its first reference's dominant colour, so a caller can see it was read.
   */
  async image(call: ImageCall): Promise<ImageResult> {
    if (call.signal.aborted) throw aborted();
    this.playFault();
    const digest = createHash('sha256').update(`${call.upstreamModel}\n${call.prompt}`).digest();
    const edited = call.references[0] === undefined ? null : await referenceColour(call.references[0].bytes);
    const colour = (i: number) => edited ?? { r: digest[i % 32]!, g: digest[(i + 1) % 32]!, b: digest[(i + 2) % 32]! };
    const images = await Promise.all(
      Array.from({ length: call.n }, async (_, i) => ({
        bytes: await solidImage(call.width, call.height, { ...colour(i), alpha: 0.5 }, 'png'),
        mimeType: 'image/png',
      })),
    );
    return { images };
  }

  readonly mediaFormats: Partial<Record<MediaKind, readonly string[]>>;

  async startMedia(call: MediaCall): Promise<string> {
    if (call.signal.aborted) throw aborted();
    const task: SandboxTask = {
      kind: call.kind,
      format: call.outputFormat,
      params: call.params,
      startedAtMs: Date.now(),
    };
    return `sbx_${Buffer.from(JSON.stringify(task)).toString('base64url')}`;
  }

  async pollMedia(taskId: string): Promise<MediaTaskState> {
    const task = parseTask(taskId);
    if (Date.now() - task.startedAtMs < SANDBOX_RENDER_MS) return { state: 'running', progress: null };
    if (task.kind === 'video' || (task.kind === 'restoration' && task.params.duration !== undefined))
      return { state: 'completed', outputs: [await this.clip(task)] };
    if (task.kind === 'restoration') {
      const format = task.format as 'png' | 'jpeg' | 'tiff';
      const bytes = await solidImage(
        Number(task.params.width),
        Number(task.params.height),
        { r: 200, g: 200, b: 200, alpha: 1 },
        format,
      );
      return { state: 'completed', outputs: [{ bytes, mimeType: `image/${format}` }] };
    }
    const format = task.format as AudioFormat;
    const track = (seconds: number, pitchOf: string) => ({
      bytes: encodeAudio(tone(seconds, 220 + (fnv1a32Bytes(utf8.encode(pitchOf)) % 440)), format),
      mimeType: AUDIO_MIME[format],
    });
    if (task.kind === 'music') {
      const seconds = Number(task.params.duration);
      return {
        state: 'completed',
        outputs: Array.from({ length: Number(task.params.tracks ?? 1) }, (_, i) =>
          track(seconds, `${String(task.params.prompt)}#${i}`),
        ),
      };
    }
    const text = String(task.params.input ?? '');
    return {
      state: 'completed',
      outputs: [track(Math.max(0.5, text.length / SPEECH_CHARS_PER_SECOND), String(task.params.voice ?? ''))],
    };
  }

  /** A silent clip of the task's size (planned, or its resolution and aspect) and duration (MOV remuxed from the MP4). */
  private async clip(task: SandboxTask): Promise<{ bytes: Buffer; mimeType: string }> {
    const size =
      task.params.width !== undefined
        ? { width: Number(task.params.width), height: Number(task.params.height) }
        : frameSize(task.params);
    const digest = createHash('sha256')
      .update(String(task.params.prompt ?? task.params.video_url))
      .digest();
    const mp4 = await this.clips!.mp4({
      ...size,
      fps: VIDEO_FPS,
      frames: Math.max(1, Math.round(Number(task.params.duration) * VIDEO_FPS)),
      rgb: [digest[0]!, digest[1]!, digest[2]!],
    });
    return task.format === 'mov'
      ? { bytes: await remuxToMov(mp4), mimeType: 'video/quicktime' }
      : { bytes: mp4, mimeType: 'video/mp4' };
  }

  async rerank(call: RerankCall): Promise<RerankResult> {
    if (call.signal.aborted) throw aborted();
    this.playFault();
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
  const idf = new Map(
    terms.map((term) => {
      const having = frequencies.filter((tf) => tf.has(term)).length;
      return [term, Math.log(1 + (count - having + 0.5) / (having + 0.5))];
    }),
  );
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
