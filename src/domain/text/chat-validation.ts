/**
 * What the JSON schema cannot say about chat, embedding and rerank bodies (SPEC 2.1, 2.3, 2.9, 4.1, 4.2, 7.2, 8).
 * The contract's validator has already checked types and ranges; these rules need the catalog row, the
 * tokenizer, or a look inside strings (roles, multimodal parts, data URIs). Every check here is local; image
 * links are loaded later, once the caller is shown able to pay (chat/image-links.ts).
 */

import type { EmbeddingInput } from '../../adapters/upstream/index.js';
import { ApiError, type ErrorMeta, invalidField } from '../../errors/api-error.js';
import type { ErrorCode } from '../../errors/catalog.js';
import { isRecord } from '../../lib/is-record.js';
import type { CatalogFileEntry } from '../catalog/catalog-file.js';

export interface ChatValidationOptions {
  /** The longest text a single message may carry, in characters (SPEC 7.2 message_too_long; SPEC 8 leaves the value open). */
  maxMessageChars: number;
}

export interface ChatLimitsInput {
  promptTokens: number;
  /** `max_tokens` or `max_completion_tokens` as sent; undefined when the client sent neither. */
  maxTokens?: number | undefined;
}

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);
const IMAGE_DETAILS = new Set(['auto', 'low', 'high']);
/** The image types every vision upstream accepts inline. */
const IMAGE_DATA_URI = /^data:image\/(?:png|jpeg|gif|webp);base64,/;
const BASE64_BODY = /^[A-Za-z0-9+/]*={0,2}$/;

type Where = 'role' | 'content' | undefined;

/** One finding about `messages[index]`, in the shape of the validator's own (SPEC 2.7 meta.fields). */
export function messageError(
  code: ErrorCode,
  index: number,
  where: Where,
  msg: string,
  extra: ErrorMeta = {},
): ApiError {
  const loc: (string | number)[] = ['body', 'messages', index];
  if (where !== undefined) loc.push(where);
  const path = `messages[${index}]${where === undefined ? '' : `.${where}`}`;
  return new ApiError(code, `${path}: ${msg}`, { meta: { ...extra, fields: [{ type: code, loc, msg, ctx: {} }] } });
}

/** What one message's content holds once its shape is known good. */
interface ContentSummary {
  /** Text the model reads (string content, or every text part). */
  texts: string[];
  /** image_url or input_audio parts: a message with one of these is not empty. */
  mediaParts: number;
  imageUrls: { part: number; url: string }[];
}

/** A part's shape (the widely used chat-completions format; SPEC 4.2 "multimodal parts validated"). */
function checkPart(part: unknown, index: number, j: number, role: string, into: ContentSummary): void {
  const bad = (msg: string): ApiError => messageError('invalid_messages_format', index, 'content', `part ${j}: ${msg}`);
  if (!isRecord(part)) throw bad('must be an object with a type');
  if (part.type === 'text') {
    if (typeof part.text !== 'string') throw bad('a text part needs a string "text"');
    into.texts.push(part.text);
    return;
  }
  if (part.type !== 'image_url' && part.type !== 'input_audio') {
    throw bad(`unsupported part type ${JSON.stringify(part.type)}; use text, image_url or input_audio`);
  }
  // Vendors take images and audio from the user only; elsewhere the upstream would bounce the whole chain.
  if (role !== 'user') throw bad(`${part.type} parts are accepted only in user messages`);
  into.mediaParts += 1;
  if (part.type === 'image_url') {
    const image = part.image_url;
    if (!isRecord(image) || typeof image.url !== 'string')
      throw bad('an image_url part needs image_url: {url: string}');
    if (image.detail !== undefined && (typeof image.detail !== 'string' || !IMAGE_DETAILS.has(image.detail))) {
      throw bad('image_url.detail must be auto, low or high');
    }
    into.imageUrls.push({ part: j, url: image.url });
    return;
  }
  const audio = part.input_audio;
  if (!isRecord(audio) || typeof audio.data !== 'string' || audio.data === '' || typeof audio.format !== 'string') {
    throw bad('an input_audio part needs input_audio: {data: string, format: string}');
  }
}

/** OpenAI's rule: an assistant turn that only calls tools carries no text. */
function callsTools(message: Record<string, unknown>): boolean {
  if (message.role !== 'assistant') return false;
  return (Array.isArray(message.tool_calls) && message.tool_calls.length > 0) || isRecord(message.function_call);
}

function summarize(message: Record<string, unknown>, index: number, role: string): ContentSummary {
  const summary: ContentSummary = { texts: [], mediaParts: 0, imageUrls: [] };
  const { content } = message;
  if (typeof content === 'string') {
    summary.texts.push(content);
  } else if (Array.isArray(content)) {
    content.forEach((part, j) => checkPart(part, index, j, role, summary));
  } else if (!((content === null || content === undefined) && callsTools(message))) {
    const msg =
      role === 'tool'
        ? 'a tool message needs content'
        : 'must be a string or an array of parts (null only on an assistant message with tool_calls)';
    throw messageError('invalid_messages_format', index, 'content', msg);
  }
  return summary;
}

/** Characters as people count them (code points), computed only when the cheaper UTF-16 length is over. */
function exceedsChars(texts: string[], limit: number): boolean {
  let units = 0;
  for (const text of texts) units += text.length;
  if (units <= limit) return false;
  let chars = 0;
  for (const text of texts) for (const _ of text) chars += 1;
  return chars > limit;
}

/**
 * A data URI must be a PNG, JPEG, GIF or WebP in canonical padded base64; anything else must parse as an
 * http(s) URL (SPEC 7.2 invalid_image_payload). The charset and padding checks cover the whole payload; only
 * the last quantum can hide non-zero padding bits, so only it is decoded and re-encoded, not megabytes.
 */
export function imageUrlProblem(url: string): string | null {
  if (url.startsWith('data:')) {
    const prefix = IMAGE_DATA_URI.exec(url);
    if (prefix === null) return 'a data URI must be data:image/(png|jpeg|gif|webp);base64,<data>';
    const body = url.slice(prefix[0].length);
    if (body.length === 0 || body.length % 4 !== 0 || !BASE64_BODY.test(body))
      return 'the embedded image is not valid base64';
    const last = body.slice(-4);
    if (Buffer.from(last, 'base64').toString('base64') !== last) return 'the embedded image is not valid base64';
    return null;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'image_url.url must be an http(s) URL or a data URI';
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '') {
    return 'image_url.url must be an http(s) URL or a data URI';
  }
  return null;
}

function validateMessage(message: unknown, index: number, opts: ChatValidationOptions): void {
  if (!isRecord(message)) throw messageError('invalid_messages_format', index, undefined, 'must be an object');
  const { role } = message;
  if (typeof role !== 'string' || !ROLES.has(role)) {
    throw messageError(
      'invalid_messages_format',
      index,
      'role',
      `unsupported role ${JSON.stringify(role)}; use system, developer, user, assistant or tool`,
    );
  }
  const summary = summarize(message, index, role);
  // SPEC 4.2 / 7.2: whitespace-only content is rejected; a tool-calling assistant turn may carry none.
  const hasText = summary.texts.some((text) => text.trim() !== '');
  if (!hasText && summary.mediaParts === 0 && !callsTools(message)) {
    throw messageError('empty_message_content', index, 'content', 'must not be empty or whitespace-only');
  }
  if (exceedsChars(summary.texts, opts.maxMessageChars)) {
    throw messageError('message_too_long', index, 'content', `longer than ${opts.maxMessageChars} characters`, {
      limit: opts.maxMessageChars,
    });
  }
  for (const { part, url } of summary.imageUrls) {
    const problem = imageUrlProblem(url);
    if (problem !== null) throw messageError('invalid_image_payload', index, 'content', `part ${part}: ${problem}`);
  }
}

/**
 * Roles, content shapes, emptiness, length and embedded images of every message, first failure wins
 * (SPEC 4.2, 7.2). Messages are `unknown` on purpose: the schema allows any extra fields and this is the
 * place that looks inside.
 */
export function validateChatMessages(messages: readonly unknown[], opts: ChatValidationOptions): void {
  messages.forEach((message, index) => validateMessage(message, index, opts));
}

/**
 * The catalog row's output cap (SPEC 2.5 capabilities, 7.2): `max_tokens` not above `max_output_tokens`. Checked
 * before anything is counted or held, so an impossible cap is answered as such, never as a hold too large to pay.
 */
export function validateOutputCap(entry: CatalogFileEntry, maxTokens: number | undefined): void {
  const cap = entry.capabilities.max_output_tokens;
  if (maxTokens !== undefined && cap !== undefined && maxTokens > cap) {
    throw new ApiError(
      'invalid_max_tokens',
      `max_tokens: ${maxTokens} is above the output cap of ${entry.slug} (${cap})`,
      {
        param: 'max_tokens',
        meta: { max_tokens: cap },
      },
    );
  }
}

/** The estimated prompt plus the requested output within the row's `context_tokens` (SPEC 2.5, 7.2); no window, no check. */
export function validateContextWindow(entry: CatalogFileEntry, input: ChatLimitsInput): void {
  const { promptTokens, maxTokens } = input;
  const window = entry.capabilities.context_tokens;
  if (window !== undefined && promptTokens + (maxTokens ?? 0) > window) {
    // The wording clients match on to raise their context-overflow error (LangChain: "maximum context length").
    const asked =
      maxTokens === undefined
        ? `${promptTokens} tokens in the messages`
        : `${promptTokens + maxTokens} tokens (${promptTokens} in the messages, ${maxTokens} in the completion)`;
    throw new ApiError(
      'context_window_exceeded',
      `This model's maximum context length is ${window} tokens. However, you requested ${asked}. Please reduce the length of the messages or completion.`,
      {
        param: 'messages',
        meta: { limit: window, prompt_tokens: promptTokens },
      },
    );
  }
}

function checkDimensions(entry: CatalogFileEntry, dimensions: number): void {
  const { accepts_dimensions: accepts, embedding_dimensions: native } = entry.capabilities;
  if (accepts !== true) {
    throw new ApiError(
      'dimensions_unsupported',
      `dimensions: ${entry.slug} always returns its native size; omit dimensions`,
      {
        meta: { slug: entry.slug },
      },
    );
  }
  // SPEC 2.1 "any smaller size than native"; the native size itself is accepted, as OpenAI accepts it, and gives
  // what omitting the field gives (issue 24 item 10).
  if (native !== undefined && dimensions > native) {
    throw new ApiError(
      'dimensions_unsupported',
      `dimensions: must be at most ${native}, the native size of ${entry.slug}`,
      {
        meta: { slug: entry.slug, hint: `send 1 to ${native}, or omit dimensions for ${native}` },
      },
    );
  }
}

/**
 * An embeddings request against its row (SPEC 2.1, 2.9, 4.1 rule 2): not empty, `dimensions` only where accepted
 * and not above native, at most `max_input_items` inputs. Cheap: nothing is tokenized yet.
 */
export function validateEmbeddingInput(
  entry: CatalogFileEntry,
  inputs: readonly EmbeddingInput[],
  dimensions?: number,
): void {
  if (inputs.length === 0) throw new ApiError('input_required', 'input: must not be empty');
  if (dimensions !== undefined) checkDimensions(entry, dimensions);
  const { max_input_items: maxItems } = entry.capabilities;
  if (maxItems !== undefined && inputs.length > maxItems) {
    throw invalidField(
      ['body', 'input'],
      `${inputs.length} inputs; ${entry.slug} takes at most ${maxItems} per request`,
      'maxItems',
    );
  }
}

/**
 * Each input at most `max_input_tokens` tokens (SPEC 8): text as counted (`textTokens`, aligned with `inputs`),
 * token ids as given. Returns each input's tokens, which SPEC 4.1 rule 3 bills.
 */
export function checkEmbeddingTokens(
  entry: CatalogFileEntry,
  inputs: readonly EmbeddingInput[],
  textTokens: readonly number[],
): number[] {
  const maxTokens = entry.capabilities.max_input_tokens;
  return inputs.map((input, i) => {
    const tokens = typeof input === 'string' ? (textTokens[i] ?? 0) : checkedTokenIds(entry, input, i);
    if (maxTokens !== undefined && tokens > maxTokens) {
      const msg = `${tokens} tokens; ${entry.slug} takes at most ${maxTokens} per input`;
      throw new ApiError('invalid_request', `input[${i}]: ${msg}`, {
        meta: {
          limit: maxTokens,
          fields: [{ type: 'maxTokens', loc: ['body', 'input', i], msg, ctx: { limit: maxTokens } }],
        },
      });
    }
    return tokens;
  });
}

/** Token ids are counted as given, for a model that names its vocabulary, each id inside it. */
function checkedTokenIds(entry: CatalogFileEntry, ids: readonly number[], index: number): number {
  const vocabulary = entry.capabilities.token_vocabulary;
  if (vocabulary === undefined) {
    throw invalidField(
      ['body', 'input', index],
      `${entry.slug} takes text only: token ids are read in a model's own vocabulary`,
      'textOnly',
    );
  }
  const outside = ids.findIndex((id) => id >= vocabulary);
  if (outside !== -1) {
    throw invalidField(
      ['body', 'input', index, outside],
      `token id ${ids[outside]} is outside the ${vocabulary}-token vocabulary of ${entry.slug}`,
      'vocabulary',
    );
  }
  return ids.length;
}

/**
 * A rerank request (SPEC 2.3, 7.2 input_required): a query with something in it and at least one non-blank
 * document; at most `max_input_items` documents for the row. Blank documents beside real ones are scored.
 */
export function validateRerank(entry: CatalogFileEntry, query: string, documents: readonly string[]): void {
  if (query.trim() === '') {
    throw new ApiError('input_required', 'query: must not be empty or whitespace-only', {
      meta: {
        fields: [
          { type: 'input_required', loc: ['body', 'query'], msg: 'must not be empty or whitespace-only', ctx: {} },
        ],
      },
    });
  }
  if (!documents.some((doc) => doc.trim() !== '')) {
    throw new ApiError('input_required', 'documents: at least one document must have text', {
      meta: {
        fields: [
          { type: 'input_required', loc: ['body', 'documents'], msg: 'at least one document must have text', ctx: {} },
        ],
      },
    });
  }
  const maxItems = entry.capabilities.max_input_items;
  if (maxItems !== undefined && documents.length > maxItems) {
    throw invalidField(
      ['body', 'documents'],
      `${documents.length} documents; ${entry.slug} takes at most ${maxItems} per request`,
      'maxItems',
    );
  }
}
