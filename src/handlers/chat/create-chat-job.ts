import type { ChatBody } from '../../domain/chat/chat-service.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler, Reply } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';

export const createChatJob: Handler<'createChatJob'> = async ({ deps, principal, requestId, body }) => {
  const slug = deps.catalog.find(body?.model ?? deps.catalog.defaultModel)?.slug ?? String(body?.model);
  const job = await deps.chatJobs.start(
    requirePrincipal(principal),
    requestId,
    body as ChatBody,
    deps.chainHooks(requestId, slug, deps.config.CHAT_JOB_BUDGET_MS),
  );
  return { status: 202, body: nativeOk(job, 'Задача принята') } as Reply<'createChatJob'>;
};
