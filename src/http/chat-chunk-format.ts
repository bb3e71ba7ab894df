import { microsToUsd } from '../domain/billing/money.js';
import type { PreparedChat } from '../domain/chat/chat-service.js';
import type { StreamFormat, StreamFormatFactory } from './chat-stream.js';

/**
 * Chat completion chunks (SPEC 6.2): every upstream frame forwarded byte for byte, except that usage is taken
 * out and sent once at the end with `cost` added, and only when the client asked for it (`include_usage`).
 */
export function chatChunkFormat(prepared: PreparedChat, now: () => number): StreamFormatFactory {
  return (writer): StreamFormat => {
    /** The last usage-carrying chunk, the template of the usage chunk (id, created, model). */
    let template: Record<string, unknown> | null = null;
    return {
      open: () => undefined,
      chunk(event, info) {
        if (info.usage === null) return writer.data(event.data);
        const chunk = JSON.parse(event.data) as Record<string, unknown>;
        template = chunk;
        if (Array.isArray(chunk.choices) && chunk.choices.length > 0)
          writer.data(JSON.stringify({ ...chunk, usage: undefined }));
      },
      end(usage, costMicros) {
        if (!prepared.includeUsage) return;
        const frame = template ?? {
          id: `chatcmpl-${prepared.requestId}`,
          object: 'chat.completion.chunk',
          created: Math.floor(now() / 1000),
          model: prepared.entry.slug,
        };
        writer.data(
          JSON.stringify({
            ...frame,
            choices: [],
            usage: {
              prompt_tokens: usage.promptTokens,
              completion_tokens: usage.completionTokens,
              total_tokens: usage.promptTokens + usage.completionTokens,
              prompt_tokens_details: { cached_tokens: usage.cachedTokens },
              completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
              cost: microsToUsd(costMicros),
            },
          }),
        );
      },
      fail: (error) => writer.data(JSON.stringify({ error })),
    };
  };
}
