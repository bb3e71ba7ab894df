import type { PreparedChat } from './chat-service.js';

/** SPEC 4.2 and SPEC 8 ("Non-stream max_tokens: above 4096 uses the keep-alive path"). */
export const KEEP_ALIVE_ABOVE_TOKENS = 4096;

/**
 * SPEC 4.2: a non-stream request whose `max_tokens` is above KEEP_ALIVE_ABOVE_TOKENS is answered on the keep-alive
 * path (leading whitespace, then the JSON), so no proxy times out while a long answer is produced.
 */
export function servedByKeepAlive(prepared: Pick<PreparedChat, 'maxTokens'>): boolean {
  return (prepared.maxTokens ?? 0) > KEEP_ALIVE_ABOVE_TOKENS;
}
