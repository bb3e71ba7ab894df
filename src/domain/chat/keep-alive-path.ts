import { KEEP_ALIVE_ABOVE_TOKENS } from '../limits.js';
import type { PreparedChat } from './chat-service.js';

/**
 * SPEC 4.2: a non-stream request whose `max_tokens` is above KEEP_ALIVE_ABOVE_TOKENS is answered on the keep-alive
 * path (leading whitespace, then the JSON), so no proxy times out while a long answer is produced.
 */
export function servedByKeepAlive(prepared: Pick<PreparedChat, 'maxTokens'>): boolean {
  return (prepared.maxTokens ?? 0) > KEEP_ALIVE_ABOVE_TOKENS;
}
