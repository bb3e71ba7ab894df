import type { components } from '../../../generated/openapi.js';
import type { Usage } from '../../adapters/upstream/index.js';
import type { Charge } from '../billing.js';
import { microsToUsd } from '../money.js';
import type { ChatBody } from './chat-service.js';
import { completionText } from './chat-service.js';

type ResponsesRequest = components['schemas']['ResponsesRequest'];
type ResponsesResponse = components['schemas']['ResponsesResponse'];

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

/** SPEC 4.2 `/v1/responses`: the request as a chat completion (instructions become the system message). */
export function responsesToChat(request: ResponsesRequest): ChatBody {
  const messages: unknown[] = request.instructions === undefined ? [] : [{ role: 'system', content: request.instructions }];
  if (typeof request.input === 'string') messages.push({ role: 'user', content: request.input });
  else for (const item of request.input) messages.push({ role: item.role, content: toChatContent(item.content as string | Record<string, unknown>[]) });
  const body: ChatBody = { messages };
  if (request.model !== undefined) body.model = request.model;
  if (request.max_output_tokens !== undefined) body.max_tokens = request.max_output_tokens;
  for (const field of ['temperature', 'top_p', 'user'] as const) if (request[field] !== undefined) body[field] = request[field];
  return body;
}

/** The chat completion as a Responses object; `usage.cost` is the USD charged. */
export function chatToResponse(input: {
  completion: Record<string, unknown>;
  usage: Usage;
  charge: Charge;
  slug: string;
  requestId: string;
  nowMs: number;
  metadata: Record<string, string> | undefined;
}): ResponsesResponse {
  const text = completionText(input.completion);
  const choices = Array.isArray(input.completion.choices) ? (input.completion.choices as { finish_reason?: unknown }[]) : [];
  const truncated = choices[0]?.finish_reason === 'length';
  const suffix = input.requestId.replace(/^req_/, '');
  return {
    id: `resp_${suffix}`,
    object: 'response',
    created_at: Math.floor(input.nowMs / 1000),
    model: input.slug,
    status: truncated ? 'incomplete' : 'completed',
    output: [
      {
        type: 'message',
        id: `msg_${suffix}`,
        role: 'assistant',
        status: truncated ? 'incomplete' : 'completed',
        content: [{ type: 'output_text', text, annotations: [] }],
      },
    ],
    output_text: text,
    usage: {
      input_tokens: input.usage.promptTokens,
      output_tokens: input.usage.completionTokens,
      total_tokens: input.usage.promptTokens + input.usage.completionTokens,
      cost: microsToUsd(input.charge.costMicros),
    },
    ...(input.metadata === undefined ? {} : { metadata: input.metadata }),
  };
}
