/**
 * Token counting for chat pre-flight (SPEC 4.2: context window, worst-case hold), retrieval billing
 * (SPEC 4.1 rule 3) and our own usage when an upstream omits it (DESIGN.md 8).
 *
 * One encoding, o200k_base (the GPT-4o / GPT-5 family), imported through its own entry point so only its
 * ranks load. For other vendors it is an estimate, which is all the pre-flight needs; billing uses the
 * upstream's own `usage` whenever it sends one.
 */
import { decode, encode, countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { isRecord } from '../is-record.js';

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
 * An image part, whatever its size or `detail`: 765 tokens is what a 1024×1024 image costs at high detail
 * (85 base + 4 tiles × 170). We neither fetch URLs nor decode images on the request path, so one fixed,
 * deliberately generous figure keeps the estimate cheap and the hold on the safe side (SPEC 4.2).
 */
export const IMAGE_PART_TOKENS = 765;
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
 * BPE merges each pre-token (a run with no whitespace) in time that grows with the square of its length:
 * 100,000 letters in a row took 7 s to count here, a denial of service from a single request. Longer runs are
 * counted in pieces of this length, so counting stays linear; real words are far shorter, and for a run that is
 * not, each cut moves the count by about a token, which is all an estimate needs.
 */
const MAX_RUN_CHARS = 64;
const LONG_RUN = `\\S{${MAX_RUN_CHARS + 1},}`;
/** Without the global flag: `test` keeps no state and allocates nothing, for the common case of no long run. */
const HAS_LONG_RUN = new RegExp(LONG_RUN);
const LONG_RUNS = new RegExp(LONG_RUN, 'g');

/** `text` as the parts it is counted in (long runs cut), or null when it has no long run (the common case). */
function countedParts(text: string): string[] | null {
  if (!HAS_LONG_RUN.test(text)) return null;
  const parts: string[] = [];
  let last = 0;
  // matchAll works on a copy of the regex, so the shared one's lastIndex stays 0.
  for (const run of text.matchAll(LONG_RUNS)) {
    if (run.index > last) parts.push(text.slice(last, run.index));
    for (let at = 0; at < run[0].length; at += MAX_RUN_CHARS) parts.push(run[0].slice(at, at + MAX_RUN_CHARS));
    last = run.index + run[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}

/**
 * Text up to this many characters is counted on the event loop: about 4 ms at worst here (random printable
 * characters, 0.23 µs each; English is three times faster). Longer text is counted off it (TokenCounter).
 */
export const INLINE_TOKENIZE_CHARS = 16_384;

/** The characters of every string in `value` (a request body, a list of texts), counted only until they pass `limit`. */
export function charsUpTo(value: unknown, limit: number): number {
  let total = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0 && total <= limit) {
    const next = pending.pop();
    if (typeof next === 'string') total += next.length;
    else if (Array.isArray(next)) for (const item of next) pending.push(item); // no spread: an array may be huge
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

/** Content parts: text is counted, an image is {@link IMAGE_PART_TOKENS}, audio goes by its size. */
function countContent(content: unknown): number {
  if (typeof content === 'string') return countTokens(content);
  if (!Array.isArray(content)) return 0;
  let total = 0;
  for (const part of content) {
    if (!isRecord(part)) continue;
    if (part.type === 'text' && typeof part.text === 'string') total += countTokens(part.text);
    else if (part.type === 'image_url') total += IMAGE_PART_TOKENS;
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
 * Estimated prompt tokens of a chat request (SPEC 4.2 pre-flight and 7.2 context_window_exceeded), after the
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
