/**
 * Streams of the model API as async iterables: native chat completions (SPEC 3.4: OpenAI's chunk frames,
 * forwarded as the upstream sent them) and Responses (typed events). Breaking out of the loop, or the caller's
 * signal, closes the connection.
 */
import type { Client } from './generated/client/index.js';
import { createNativeChatCompletion, createResponse } from './generated/sdk.gen.js';
import type { ChatRequest, ResponsesRequest, ResponsesStreamEvent } from './generated/types.gen.js';
import { iterateFrames } from './sse.js';

/** One `chat.completion.chunk` frame: the fields the OpenAI chunk format defines and callers read. */
export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    delta: { role?: string; content?: string | null; tool_calls?: unknown[]; reasoning?: string | null };
    finish_reason: string | null;
  }>;
  /** On the last frame when `stream_options.include_usage` was asked, with `cost` in USD. */
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number; cost?: number } | null;
}

export interface StreamOptions {
  signal?: AbortSignal;
}

export async function* streamChat(
  client: Client,
  body: ChatRequest,
  options: StreamOptions = {},
): AsyncGenerator<ChatCompletionChunk> {
  const { response } = await createNativeChatCompletion({
    client,
    body: { ...body, stream: true },
    parseAs: 'stream',
    throwOnError: true,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  for await (const frame of iterateFrames(response, options.signal)) yield frame.data as ChatCompletionChunk;
}

export async function* streamResponse(
  client: Client,
  body: ResponsesRequest,
  options: StreamOptions = {},
): AsyncGenerator<ResponsesStreamEvent> {
  const { response } = await createResponse({
    client,
    body: { ...body, stream: true },
    parseAs: 'stream',
    throwOnError: true,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  for await (const frame of iterateFrames(response, options.signal)) yield frame.data as ResponsesStreamEvent;
}
