/**
 * Token counting for chat pre-flight (SPEC 4.2: context window, worst-case hold), retrieval billing
 * (SPEC 4.1 rule 3) and our own usage when an upstream omits it (DESIGN.md 8).
 *
 * One encoding, o200k_base (the GPT-4o / GPT-5 family), built from its ranks alone (o200k.ts). For other vendors
 * it is an estimate, which is all the pre-flight needs; billing uses the upstream's own `usage` whenever it sends one.
 */
import { isRecord } from './is-record.js';
import { o200k } from './o200k.js';

const { countTokens: countO200k, decode, encode } = o200k;

/**
 * Client text is data, never control: `<|endoftext|>` typed by a user is counted as the characters it is
 * instead of throwing "disallowed special token" (the library default) or being read as one special token.
 */
const TEXT_ONLY = { disallowedSpecial: new Set<string>() };

/** OpenAI cookbook ("How to count tokens with tiktoken"): every message is framed by 3 tokens. */
export const MESSAGE_OVERHEAD_TOKENS = 3;
/** Cookbook: a message's `name` costs one token beyond its text. */
export const NAME_OVERHEAD_TOKENS = 1;
/** Cookbook: every reply is primed with `<|start|>assistant<|message|>`. */
export const REPLY_PRIMING_TOKENS = 3;
/**
 * An audio part: we do not decode audio on the request path, so it is priced by size at one token per 32 bytes
 * (16 kHz 16-bit PCM is 32 kB a second; vendors bill about ten tokens a second): generous, as a hold must be.
 */
export const AUDIO_BYTES_PER_TOKEN = 32;
/**
 * What a model reads besides the messages: tool, function and output-format definitions. Vendors frame them in
 * their own words; counting their JSON text is close and errs on the generous side (SPEC 4.2 worst case).
 */
const DEFINITION_FIELDS = ['tools', 'tool_choice', 'response_format', 'functions', 'function_call'] as const;

/** Roles are a handful of strings; counting them once keeps the per-message loop allocation-free. */
const roleTokens = new Map<string, number>();

/**
 * BPE merges each pre-token in time that grows with the square of its length, and the encoder's pre-tokenizer
 * keeps together runs of letters (Latin or CJK), of marks, of punctuation followed by newlines, and of every kind of
 * whitespace (spaces, NBSP, U+2003, U+3000, ...): one run of 100,000 letters or 16,000 ideographic spaces takes
 * seconds, a denial of service from one request. So no piece of text handed to the encoder may hold a pre-token
 * longer than this many characters, whatever its characters: counting costs at most this much per character.
 */
export const MAX_PRETOKEN_CHARS = 64;

/** The code units JavaScript's `\s` matches (the encoder's pre-tokenizer uses `\s`): a charCode switch, no regex. */
function isWhitespace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * True when a pre-token of o200k_base always starts at `at`: a non-newline whitespace character right after a
 * non-whitespace one. No pre-token pattern can carry that character on from the one before (letters, digits and
 * punctuation take no whitespace but trailing newlines), and its own run starts there whatever precedes it. So text
 * cut there counts exactly as it does whole.
 */
function startsPreToken(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  return code !== 0x0a && code !== 0x0d && isWhitespace(code) && !isWhitespace(text.charCodeAt(at - 1));
}

/**
 * `text` as the parts it is counted in, or null when it is counted whole (the common case: prose has a pre-token
 * start every few characters). One pass: wherever MAX_PRETOKEN_CHARS characters pass without a pre-token start,
 * the text is cut there (never inside a surrogate pair). Such a cut can move the count by a token or so, which is
 * all an estimate needs; a cut at a pre-token start would change nothing, so none is made.
 */
export function countedParts(text: string): string[] | null {
  let parts: string[] | null = null;
  let partStart = 0;
  let segmentStart = 0; // the last pre-token start or cut
  for (let at = 1; at < text.length; at++) {
    if (startsPreToken(text, at)) segmentStart = at;
    else if (at - segmentStart >= MAX_PRETOKEN_CHARS) {
      const cut = isLowSurrogate(text.charCodeAt(at)) ? at - 1 : at;
      (parts ??= []).push(text.slice(partStart, cut));
      partStart = segmentStart = cut;
    }
  }
  if (parts === null) return null;
  parts.push(text.slice(partStart));
  return parts;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * Text up to this many characters is counted on the event loop: about 4 ms for random printable characters
 * (0.23 µs each; English is three times faster), up to about 13 ms for random multi-byte whitespace and punctuation,
 * where every 64-character piece is new to the encoder's cache (measured on a busy 2-core host). Longer text is
 * counted off it (TokenCounter).
 */
export const INLINE_TOKENIZE_CHARS = 16_384;

/** The characters of every string in `value` (a request body, a list of texts), counted only until they pass `limit`. */
export function charsUpTo(value: unknown, limit: number): number {
  let total = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && total <= limit) {
    const next = pending.pop();
    if (typeof next === 'string') total += next.length;
    else if (Array.isArray(next))
      for (const item of next) pending.push(item); // no spread: an array may be huge
    else if (isRecord(next)) for (const item of Object.values(next)) pending.push(item);
  }
  return total;
}

export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  const parts = countedParts(text);
  if (parts === null) return countO200k(text, TEXT_ONLY);
  return parts.reduce((sum, part) => sum + countO200k(part, TEXT_ONLY), 0);
}

/** The tokens of `text`, encoded in the same parts as countTokens counts. */
function encodeText(text: string): number[] {
  const parts = countedParts(text);
  return parts === null ? encode(text, TEXT_ONLY) : parts.flatMap((part) => encode(part, TEXT_ONLY));
}

/**
 * The longest prefix of `text` that is at most `maxTokens` tokens when counted again on its own. Decoding a
 * token prefix can re-encode to a different count, so the prefix shrinks until the count is honest.
 */
export function truncateToTokens(text: string, maxTokens: number): string {
  const tokens = encodeText(text);
  if (tokens.length <= maxTokens) return text;
  for (let keep = Math.max(0, maxTokens); keep > 0; keep -= 1) {
    const prefix = decode(tokens.slice(0, keep));
    if (countTokens(prefix) <= maxTokens) return prefix;
  }
  return '';
}

function countRole(role: string): number {
  let count = roleTokens.get(role);
  if (count === undefined) {
    count = countTokens(role);
    // Only the five valid roles are expected; an unbounded cache would grow on junk input.
    if (roleTokens.size < 16) roleTokens.set(role, count);
  }
  return count;
}

/**
 * Content parts: text is counted, audio goes by its size. Image parts are not text: the chat flow holds them by the
 * model's own rule (domain/image-tokens.ts, domain/chat/image-holds.ts), which needs the catalog row this count does not see.
 */
function countContent(content: unknown): number {
  if (typeof content === 'string') return countTokens(content);
  if (!Array.isArray(content)) return 0;
  let total = 0;
  for (const part of content) {
    if (!isRecord(part)) continue;
    if (part.type === 'text' && typeof part.text === 'string') total += countTokens(part.text);
    else if (part.type === 'input_audio' && isRecord(part.input_audio) && typeof part.input_audio.data === 'string') {
      total += Math.ceil((part.input_audio.data.length * 3) / 4 / AUDIO_BYTES_PER_TOKEN);
    }
  }
  return total;
}

/** A definition as the JSON text it is sent as. */
function countDefinition(value: unknown): number {
  if (value === undefined || value === null) return 0;
  return countTokens(typeof value === 'string' ? value : JSON.stringify(value));
}

/** An assistant's tool calls are text the model reads back: function names and JSON arguments. */
function countToolCalls(toolCalls: unknown): number {
  if (!Array.isArray(toolCalls)) return 0;
  let total = 0;
  for (const call of toolCalls) {
    if (!isRecord(call) || !isRecord(call.function)) continue;
    const { name, arguments: args } = call.function;
    if (typeof name === 'string') total += countTokens(name);
    if (typeof args === 'string') total += countTokens(args);
  }
  return total;
}

/**
 * Estimated prompt tokens of a chat request's text (SPEC 4.2 pre-flight and 7.2 context_window_exceeded), after the
 * OpenAI cookbook: per message 3 + role + content (+ 1 + name), then 3 for the reply priming; plus the tool,
 * function and response-format definitions, which the model reads too. Runs on every chat request, so it
 * tolerates any shape rather than re-validating.
 */
export function estimatePromptTokens(request: { messages?: unknown; [field: string]: unknown }): number {
  let total = REPLY_PRIMING_TOKENS;
  for (const field of DEFINITION_FIELDS) total += countDefinition(request[field]);
  const messages = Array.isArray(request.messages) ? request.messages : [];
  for (const message of messages) {
    total += MESSAGE_OVERHEAD_TOKENS;
    if (!isRecord(message)) continue;
    if (typeof message.role === 'string') total += countRole(message.role);
    total += countContent(message.content);
    if (typeof message.name === 'string') total += NAME_OVERHEAD_TOKENS + countTokens(message.name);
    total += countToolCalls(message.tool_calls);
  }
  return total;
}
