import {
  chatToResponse,
  type ResponseFrame,
  ResponseIds,
  responsesToChat,
} from '../../domain/chat/responses-mapping.js';
import { StreamSession } from '../../domain/chat/stream-session.js';
import { serveStream } from '../../http/chat-stream.js';
import { abortWhenClientLeaves } from '../../http/client-abort.js';
import { type Handler, SENT } from '../../http/operation-types.js';
import { responsesEventFormat } from '../../http/responses-event-format.js';
import { UNCANCELLABLE } from '../../lib/cancel-signal.js';
import { requirePrincipal } from '../require-principal.js';
import { streamDeps } from './serve-chat.js';

/** SPEC 4.2: Responses over the chat flow (same routing, pricing and error codes), at both of its paths, streamed or not. */
export const createResponse: Handler<'createResponse' | 'createCompatResponse'> = async ({
  deps,
  principal,
  requestId,
  body,
  req,
  res,
}) => {
  const stream = body!.stream === true;
  const prepared = await deps.chat.prepare(requirePrincipal(principal), requestId, responsesToChat(body!), stream);
  const hooks = deps.chainHooks(requestId, prepared.entry.slug);
  const frame: ResponseFrame = {
    ids: new ResponseIds(requestId),
    slug: prepared.entry.slug,
    createdAt: Math.floor(deps.now() / 1000),
    metadata: body!.metadata,
  };
  if (stream) {
    const session = new StreamSession(prepared, hooks, abortWhenClientLeaves(req, res), streamDeps(deps));
    await serveStream(res, session, responsesEventFormat(frame));
    return SENT;
  }
  const { completion, usage, charge } = await deps.chat.complete(prepared, UNCANCELLABLE, hooks);
  return { status: 200, body: chatToResponse(frame, completion, usage, charge) };
};
