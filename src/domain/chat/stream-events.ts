import type { Usage } from '../../adapters/upstream/index.js';
import { parseOpenAiUsage } from '../../adapters/upstream/openai-usage.js';

/** What one chat-completion chunk says, as far as billing and stream control care (SPEC 3.4, 6.2). */
export interface ChunkInfo {
  /** Text the chunk adds (content and reasoning), for counting tokens when the upstream sends no usage. */
  text: string;
  /** The chunk proves the upstream is answering: content, a tool call, reasoning or a finish reason. */
  answering: boolean;
  usage: Usage | null;
  /** The upstream reported an error inside the stream. */
  error: string | null;
}

interface ChunkShape {
  choices?: { delta?: { content?: unknown; reasoning_content?: unknown; reasoning?: unknown; tool_calls?: unknown }; finish_reason?: unknown }[];
  usage?: Record<string, unknown> | null;
  error?: { message?: unknown } | null;
}

/** Reads one SSE data payload; a payload that is not JSON is forwarded but proves nothing. */
export function inspectChunk(data: string): ChunkInfo {
  let chunk: ChunkShape;
  try {
    chunk = JSON.parse(data) as ChunkShape;
  } catch {
    return { text: '', answering: false, usage: null, error: null };
  }
  let text = '';
  let answering = false;
  for (const choice of chunk.choices ?? []) {
    const delta = choice.delta ?? {};
    for (const piece of [delta.content, delta.reasoning_content, delta.reasoning]) {
      if (typeof piece === 'string' && piece.length > 0) {
        text += piece;
        answering = true;
      }
    }
    if (Array.isArray(delta.tool_calls) && delta.tool_calls.length > 0) {
      text += JSON.stringify(delta.tool_calls);
      answering = true;
    }
    if (typeof choice.finish_reason === 'string') answering = true;
  }
  const error = chunk.error ? String(chunk.error.message ?? 'upstream error') : null;
  return { text, answering, usage: parseOpenAiUsage(chunk.usage), error };
}
