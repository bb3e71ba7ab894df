import type { UpstreamFailure, Usage } from '../../adapters/upstream/index.js';
import { parseOpenAiUsage } from '../../adapters/upstream/openai-usage.js';
import { isRecord } from '../../lib/is-record.js';

/** What one chat-completion chunk says, as far as billing and stream control care (SPEC 3.4, 6.2). */
export interface ChunkInfo {
  /** Text the chunk adds (content and reasoning), for counting tokens when the upstream sends no usage. */
  text: string;
  /** The chunk proves the upstream is answering: content, a tool call, reasoning or a finish reason. */
  answering: boolean;
  usage: Usage | null;
  /** The upstream reported an error inside the stream, as the HTTP failure it stands for. */
  error: UpstreamFailure | null;
}

interface ChunkShape {
  choices?: {
    delta?: { content?: unknown; reasoning_content?: unknown; reasoning?: unknown; tool_calls?: unknown };
    finish_reason?: unknown;
  }[];
  usage?: Record<string, unknown> | null;
  error?: unknown;
}

/**
 * An error sent inside a stream, as the HTTP failure it stands for, so its frame is mapped like any other
 * (SPEC 6.2 maps by status): its own numeric status or code, else what its type or code names, else a 502.
 */
function streamedFailure(error: Record<string, unknown>): UpstreamFailure {
  const message = typeof error.message === 'string' ? error.message : 'upstream error';
  const numeric = [error.status, error.code].find((v): v is number => typeof v === 'number' && v >= 400 && v <= 599);
  const named = `${String(error.type ?? '')} ${String(error.code ?? '')}`;
  const status =
    numeric ??
    (/rate_limit/.test(named) ? 429 : /not_found/.test(named) ? 404 : /invalid_request/.test(named) ? 400 : 502);
  return { kind: 'http', status, message };
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
  const error = isRecord(chunk.error) ? streamedFailure(chunk.error) : null;
  return { text, answering, usage: parseOpenAiUsage(chunk.usage), error };
}
