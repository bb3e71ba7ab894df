import type { components } from '../../../generated/openapi.js';
import type { Usage } from '../../adapters/upstream/index.js';
import { invalidField } from '../../errors/api-error.js';
import { isRecord } from '../../is-record.js';
import type { Charge } from '../billing.js';
import { microsToUsd } from '../money.js';
import type { ChatBody } from './chat-service.js';

type ResponsesRequest = components['schemas']['ResponsesRequest'];
type ResponsesResponse = components['schemas']['ResponsesResponse'];
type InputItem = Exclude<ResponsesRequest['input'], string>[number];
type OutputItem = ResponsesResponse['output'][number];

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
    if (item.type === 'function_call_output' && 'output' in item) messages.push({ role: 'tool', tool_call_id: item.call_id, content: item.output });
    else if ('role' in item) messages.push({ role: item.role, content: toChatContent(item.content as string | Record<string, unknown>[]) });
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
    throw invalidField(['body', 'previous_response_id'], 'responses are not stored here; send the whole conversation in input');
  }
  const messages: unknown[] = request.instructions === undefined ? [] : [{ role: 'system', content: request.instructions }];
  if (typeof request.input === 'string') messages.push({ role: 'user', content: request.input });
  else messages.push(...toChatMessages(request.input));
  const body: ChatBody = { messages };
  if (request.model !== undefined) body.model = request.model;
  if (request.max_output_tokens !== undefined) body.max_tokens = request.max_output_tokens;
  for (const field of ['temperature', 'top_p', 'user', 'parallel_tool_calls'] as const) if (request[field] !== undefined) body[field] = request[field];
  if (request.tools !== undefined && request.tools.length > 0) {
    body.tools = request.tools.map(({ type, ...fn }) => ({ type, function: fn }));
  }
  if (request.tool_choice !== undefined) {
    body.tool_choice = typeof request.tool_choice === 'string' ? request.tool_choice : { type: 'function', function: { name: request.tool_choice.name } };
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

/** The message's tool calls as `function_call` output items. */
function functionCalls(message: Record<string, unknown>, suffix: string): OutputItem[] {
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  return calls.filter(isRecord).flatMap((call, i) => {
    const fn = isRecord(call.function) ? call.function : {};
    if (typeof fn.name !== 'string') return [];
    const callId = typeof call.id === 'string' ? call.id : `call_${suffix}_${i}`;
    const args = typeof fn.arguments === 'string' ? fn.arguments : JSON.stringify(fn.arguments ?? {});
    return [{ type: 'function_call' as const, id: `fc_${suffix}_${i}`, call_id: callId, name: fn.name, arguments: args, status: 'completed' as const }];
  });
}

/** The chat completion as a Responses object; `usage.cost` is the USD charged. */
export function chatToResponse(input: {
  completion: Record<string, unknown>;
  usage: Usage;
  charge: Charge;
  slug: string;
  requestId: string;
  nowMs: number;
  metadata: Record<string, string> | null | undefined;
}): ResponsesResponse {
  const suffix = input.requestId.replace(/^req_/, '');
  const { message: reply, finishReason } = firstChoice(input.completion);
  const calls = functionCalls(reply, suffix);
  const text = typeof reply.content === 'string' ? reply.content : '';
  const status = finishReason === 'length' ? ('incomplete' as const) : ('completed' as const);
  const message: OutputItem = { type: 'message', id: `msg_${suffix}`, role: 'assistant', status, content: [{ type: 'output_text', text, annotations: [] }] };
  return {
    id: `resp_${suffix}`,
    object: 'response',
    created_at: Math.floor(input.nowMs / 1000),
    model: input.slug,
    status,
    output: calls.length > 0 && text === '' ? calls : [message, ...calls],
    output_text: text,
    usage: {
      input_tokens: input.usage.promptTokens,
      output_tokens: input.usage.completionTokens,
      total_tokens: input.usage.promptTokens + input.usage.completionTokens,
      cost: microsToUsd(input.charge.costMicros),
    },
    ...(input.metadata === undefined || input.metadata === null ? {} : { metadata: input.metadata }),
  };
}
