import type { ChatBody } from '../../domain/chat/chat-service.js';
import type { Handler, Reply } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';
import { serveChat } from './serve-chat.js';

export const createNativeChatCompletion: Handler<'createNativeChatCompletion'> = async ({
  deps,
  principal,
  requestId,
  body,
  req,
  res,
}) => {
  const result = await serveChat(
    { deps, principal: requirePrincipal(principal), requestId, body: body as ChatBody, req, res },
    'native',
  );
  return 'sent' in result ? result.sent : ({ status: 200, body: result.body } as Reply<'createNativeChatCompletion'>);
};
