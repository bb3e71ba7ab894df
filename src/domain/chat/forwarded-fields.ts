/**
 * Which chat-completions fields reach an upstream (issue rule "only what is priced is forwarded"). The hold and the
 * charge price a request as prompt tokens plus `n` × the output cap at the catalog's text rates (DESIGN.md 3); a
 * field that makes the vendor bill anything else would be paid by the platform. So the upstream gets the fields
 * listed here and nothing else, and any other field is refused with 400 `invalid_request` naming it: a new vendor
 * field, or one of another vendor's dialect, is never forwarded unpriced because nobody thought of it.
 */
import { invalidField } from '../../errors/api-error.js';

/**
 * Forwarded unchanged. Each is free at the vendor or already inside the hold: sampling and output shaping
 * (billed as the output tokens they shape, capped by the output cap), identifiers, and the definitions the prompt
 * count includes (tools, tool_choice, response_format, functions, function_call: lib/token-count.ts DEFINITION_FIELDS).
 */
const FORWARDED: ReadonlySet<string> = new Set([
  'messages',
  // `n`: the hold covers n × the output cap (chat-service.ts prepare).
  'n',
  'temperature',
  'top_p',
  'frequency_penalty',
  'presence_penalty',
  'logit_bias',
  'logprobs',
  'top_logprobs',
  'seed',
  'stop',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'functions',
  'function_call',
  'response_format',
  // Reasoning tokens are output tokens: the output cap bounds them whatever the effort or verbosity.
  'reasoning_effort',
  'verbosity',
  'user',
  'safety_identifier',
  // A cache hint: cached input is billed at most at the full input rate, and the discount only when reported.
  'prompt_cache_key',
]);

/** Read by prepare, which sets what the upstream gets for them (the route's model, the output cap, stream flags). */
const SET_BY_THE_GATEWAY: ReadonlySet<string> = new Set([
  'model',
  'max_tokens',
  'max_completion_tokens',
  'stream',
  'stream_options',
]);

/**
 * Fields the catalog does not price, and why; a value for which the check answers null is forwarded. A Map, so a
 * field named `constructor` or `__proto__` is an unknown field, not a property of every object.
 */
const PRICED_ELSEWHERE: ReadonlyMap<string, (value: unknown) => string | null> = new Map(
  Object.entries({
    // The catalog's rates are the standard tier's: `priority` bills more, `flex` and `scale` are other contracts.
    service_tier: (value) =>
      value === 'auto' || value === 'default'
        ? null
        : 'only auto or default: other tiers are billed at prices the catalog does not carry',
    // Rejected prediction tokens are billed as output on top of the answer, beyond the output cap the hold covers.
    prediction: () => 'predicted outputs are billed beyond the output cap and are not offered',
    // Each search is billed per call on top of tokens.
    web_search_options: () => 'web search is billed per call and is not offered',
    // Audio output is billed at audio token rates, several times the text rate the catalog charges.
    modalities: (value) =>
      Array.isArray(value) && value.every((m) => m === 'text')
        ? null
        : 'only ["text"]: audio output is billed at audio rates the catalog does not carry',
    audio: () => 'audio output is billed at audio rates the catalog does not carry',
    // Stored completions are kept in the vendor account of the platform, not the caller's.
    store: (value) => (value === false ? null : 'completions are not stored at the vendor'),
  }),
);

/**
 * Throws 400 `invalid_request` naming the first field of `body` that would reach an upstream unpriced. A field
 * sent as null is one not set (clients that print every optional field send nulls): it passes and is not forwarded.
 */
export function assertForwardable(body: Record<string, unknown>): void {
  for (const [field, value] of Object.entries(body)) {
    if (FORWARDED.has(field) || SET_BY_THE_GATEWAY.has(field) || value === undefined || value === null) continue;
    const refusal = PRICED_ELSEWHERE.get(field);
    if (refusal === undefined)
      throw invalidField(
        ['body', field],
        'this field is not forwarded to models here (see the request schema for the ones that are)',
        'not_forwarded',
      );
    const reason = refusal(value);
    if (reason !== null) throw invalidField(['body', field], reason, 'not_priced');
  }
}

/** The fields of a checked body the upstream receives (prepare then adds the model, the output cap and stream flags). */
export function forwardedFields(body: Record<string, unknown>): Record<string, unknown> {
  const forwarded: Record<string, unknown> = {};
  for (const field in body)
    if (FORWARDED.has(field) || (PRICED_ELSEWHERE.has(field) && body[field] !== null)) forwarded[field] = body[field];
  return forwarded;
}
