import type { components } from '../../../generated/openapi.js';
import type { Usage } from '../../adapters/upstream/index.js';
import { invalidField } from '../../errors/api-error.js';
import { isRecord } from '../../lib/is-record.js';
import type { Charge } from '../billing/billing.js';
import { microsToUsd } from '../billing/money.js';
import type { ChatBody } from './chat-service.js';

type ResponsesRequest = components['schemas']['ResponsesRequest'];
type ResponsesResponse = components['schemas']['ResponsesResponse'];
type InputItem = Exclude<ResponsesRequest['input'], string>[number];
type ResponsesInProgress = components['schemas']['ResponsesInProgress'];
type OutputItem = components['schemas']['ResponsesOutputItem'];
type OutputText = components['schemas']['ResponsesOutputText'];
type MessageStatus = 'in_progress' | 'completed' | 'incomplete';

const PART_TYPES: Record<string, (part: Record<string, unknown>) => Record<string, unknown>> = {
  input_text: (p) => ({ type: 'text', text: p.text }),
  output_text: (p) => ({ type: 'text', text: p.text }),
  input_image: (p) => ({ type: 'image_url', image_url: { url: p.image_url } }),
};

/** Responses content parts → chat parts; a part type with no chat twin is passed on and rejected by chat validation. */
function toChatContent(content: string | Record<string, unknown>[]): unknown {
  if (typeof content === 'string') return content;
  return content.map((part) => PART_TYPES[String(part.type)]?.(part) ?? part);
}

/**
 * Input items → chat messages: a message is a message; `function_call` items (consecutive ones are parallel calls
 * of one turn) become one assistant message with `tool_calls`; a `function_call_output` is a `tool` message.
 */
function toChatMessages(items: readonly InputItem[]): unknown[] {
  const messages: unknown[] = [];
  let calls: { id: string; type: 'function'; function: { name: string; arguments: string } }[] | null = null;
  for (const item of items) {
    if (item.type === 'function_call' && 'call_id' in item && 'name' in item) {
      if (calls === null) {
        calls = [];
        messages.push({ role: 'assistant', content: null, tool_calls: calls });
      }
      calls.push({ id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } });
      continue;
    }
    calls = null;
    if (item.type === 'function_call_output' && 'output' in item)
      messages.push({ role: 'tool', tool_call_id: item.call_id, content: item.output });
    else if ('role' in item)
      messages.push({ role: item.role, content: toChatContent(item.content as string | Record<string, unknown>[]) });
  }
  return messages;
}

/** `text.format` → chat `response_format` (plain text needs none). */
function responseFormat(format: NonNullable<NonNullable<ResponsesRequest['text']>['format']>): unknown {
  if (format.type === 'text') return undefined;
  if (format.type === 'json_object') return { type: 'json_object' };
  const { type: _type, ...schema } = format;
  return { type: 'json_schema', json_schema: schema };
}

/** SPEC 4.2 `/v1/responses`: the request as a chat completion (instructions become the system message). */
export function responsesToChat(request: ResponsesRequest): ChatBody {
  if (request.previous_response_id !== undefined && request.previous_response_id !== null) {
    throw invalidField(
      ['body', 'previous_response_id'],
      'responses are not stored here; send the whole conversation in input',
    );
  }
  const messages: unknown[] =
    request.instructions === undefined ? [] : [{ role: 'system', content: request.instructions }];
  if (typeof request.input === 'string') messages.push({ role: 'user', content: request.input });
  else messages.push(...toChatMessages(request.input));
  const body: ChatBody = { messages };
  if (request.model !== undefined) body.model = request.model;
  if (request.max_output_tokens !== undefined) body.max_tokens = request.max_output_tokens;
  for (const field of ['temperature', 'top_p', 'user', 'parallel_tool_calls'] as const)
    if (request[field] !== undefined) body[field] = request[field];
  if (request.tools !== undefined && request.tools.length > 0) {
    body.tools = request.tools.map(({ type, ...fn }) => ({ type, function: fn }));
  }
  if (request.tool_choice !== undefined) {
    body.tool_choice =
      typeof request.tool_choice === 'string'
        ? request.tool_choice
        : { type: 'function', function: { name: request.tool_choice.name } };
  }
  const format = request.text?.format === undefined ? undefined : responseFormat(request.text.format);
  if (format !== undefined) body.response_format = format;
  if (request.reasoning?.effort) body.reasoning_effort = request.reasoning.effort;
  return body;
}

/** The first choice (a Responses request has no `n`): its message and why it stopped. */
function firstChoice(completion: Record<string, unknown>): { message: Record<string, unknown>; finishReason: unknown } {
  const choice = Array.isArray(completion.choices) ? (completion.choices[0] as unknown) : undefined;
  if (!isRecord(choice)) return { message: {}, finishReason: undefined };
  return { message: isRecord(choice.message) ? choice.message : {}, finishReason: choice.finish_reason };
}

/** Names one response's ids: `resp_…`, `msg_…` and `fc_…_<n>` share the request id's suffix. */
export class ResponseIds {
  readonly suffix: string;

  constructor(requestId: string) {
    this.suffix = requestId.replace(/^req_/, '');
  }

  get response(): string {
    return `resp_${this.suffix}`;
  }

  get message(): string {
    return `msg_${this.suffix}`;
  }

  /** The n-th function call (0-based): its item id, and the call id used when the upstream gave none. */
  functionCall(n: number): { id: string; fallbackCallId: string } {
    return { id: `fc_${this.suffix}_${n}`, fallbackCallId: `call_${this.suffix}_${n}` };
  }
}

/** How a finished response stands: `incomplete` when the output cap cut it (chat's `length`). */
export function responseStatus(finishReason: unknown): 'completed' | 'incomplete' {
  return finishReason === 'length' ? 'incomplete' : 'completed';
}

export function messageItem(ids: ResponseIds, text: string, status: MessageStatus): OutputItem {
  return {
    type: 'message',
    id: ids.message,
    role: 'assistant',
    status,
    content: status === 'in_progress' ? [] : [outputText(text)],
  };
}

export function outputText(text: string): OutputText {
  return { type: 'output_text', text, annotations: [] };
}

export function functionCallItem(
  ids: ResponseIds,
  n: number,
  call: { callId: string | undefined; name: string; arguments: string },
  status: 'in_progress' | 'completed',
): OutputItem {
  const { id, fallbackCallId } = ids.functionCall(n);
  return {
    type: 'function_call',
    id,
    call_id: call.callId ?? fallbackCallId,
    name: call.name,
    arguments: call.arguments,
    status,
  };
}

/** The message's tool calls as `function_call` output items. */
function functionCalls(ids: ResponseIds, message: Record<string, unknown>): OutputItem[] {
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isRecord) : [];
  return calls
    .flatMap((call) => {
      const fn = isRecord(call.function) ? call.function : {};
      if (typeof fn.name !== 'string') return [];
      const args = typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {});
      return [{ callId: typeof call.id === 'string' ? call.id : undefined, name: fn.name, arguments: args }];
    })
    .map((call, n) => functionCallItem(ids, n, call, 'completed'));
}

/** What a finished response is made of: its items in order, its text and how it stopped. */
export interface ResponseOutcome {
  output: OutputItem[];
  text: string;
  status: 'completed' | 'incomplete';
  usage: Usage;
  /** `usage.cost`: what was charged, or for a stream the list-price estimate (SPEC 2.6). */
  costMicros: bigint;
}

export interface ResponseFrame {
  ids: ResponseIds;
  slug: string;
  createdAt: number;
  metadata: Record<string, string> | null | undefined;
}

/** The Responses object shared by a stream's first events: nothing produced yet. */
export function responseInProgress(frame: ResponseFrame): ResponsesInProgress {
  return {
    id: frame.ids.response,
    object: 'response',
    created_at: frame.createdAt,
    model: frame.slug,
    status: 'in_progress',
    output: [],
    usage: null,
    ...metadataOf(frame),
  };
}

/** The finished Responses object, alike for a plain answer and a stream's `response.completed`. */
export function finishedResponse(frame: ResponseFrame, outcome: ResponseOutcome): ResponsesResponse {
  const { usage } = outcome;
  return {
    id: frame.ids.response,
    object: 'response',
    created_at: frame.createdAt,
    model: frame.slug,
    status: outcome.status,
    incomplete_details: outcome.status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    output: outcome.output,
    output_text: outcome.text,
    usage: {
      input_tokens: usage.promptTokens,
      input_tokens_details: { cached_tokens: usage.cachedTokens },
      output_tokens: usage.completionTokens,
      output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
      total_tokens: usage.promptTokens + usage.completionTokens,
      cost: microsToUsd(outcome.costMicros),
    },
    ...metadataOf(frame),
  };
}

function metadataOf(frame: ResponseFrame): { metadata?: Record<string, string> } {
  return frame.metadata === undefined || frame.metadata === null ? {} : { metadata: frame.metadata };
}

/** The chat completion as a Responses object; `usage.cost` is the USD charged. */
export function chatToResponse(
  frame: ResponseFrame,
  completion: Record<string, unknown>,
  usage: Usage,
  charge: Charge,
): ResponsesResponse {
  const { message: reply, finishReason } = firstChoice(completion);
  const calls = functionCalls(frame.ids, reply);
  const text = typeof reply.content === 'string' ? reply.content : '';
  const status = responseStatus(finishReason);
  const output = calls.length > 0 && text === '' ? calls : [messageItem(frame.ids, text, status), ...calls];
  return finishedResponse(frame, { output, text, status, usage, costMicros: charge.costMicros });
}
