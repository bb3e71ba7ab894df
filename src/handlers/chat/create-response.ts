import { chatToResponse, responsesToChat } from '../../domain/chat/responses-mapping.js';
import { abortWhenClientLeaves } from '../../http/client-abort.js';
import type { Handler } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';

/** SPEC 4.2: Responses over the chat flow (same routing, pricing and error codes), at both of its paths. */
export const createResponse: Handler<'createResponse' | 'createCompatResponse'> = async ({ deps, principal, requestId, body, req, res }) => {
  const prepared = await deps.chat.prepare(requirePrincipal(principal), requestId, responsesToChat(body!), false);
  const { completion, usage, charge } = await deps.chat.complete(prepared, abortWhenClientLeaves(req, res), deps.chainHooks(requestId, prepared.entry.slug));
  return {
    status: 200,
    body: chatToResponse({ completion, usage, charge, slug: prepared.entry.slug, requestId, nowMs: deps.now(), metadata: body!.metadata }),
  };
};
