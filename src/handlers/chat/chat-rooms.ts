import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { UNCANCELLABLE } from '../../lib/cancel-signal.js';
import { requirePrincipal } from '../require-principal.js';

const DEFAULT_LIMIT = 50;

export const createChat: Handler<'createChat'> = async ({ deps, principal, body }) => ({
  status: 201,
  body: nativeOk(await deps.chatRooms.create(requirePrincipal(principal), body?.title)),
});

export const listChats: Handler<'listChats'> = async ({ deps, principal, query }) => ({
  status: 200,
  body: nativeOk({
    chats: await deps.chatRooms.list(requirePrincipal(principal), query.limit ?? DEFAULT_LIMIT, query.offset ?? 0),
  }),
});

export const getChat: Handler<'getChat'> = async ({ deps, principal, params }) => ({
  status: 200,
  body: nativeOk(await deps.chatRooms.read(requirePrincipal(principal), params.chat_id)),
});

export const createChatMessage: Handler<'createChatMessage'> = async ({
  deps,
  principal,
  requestId,
  params,
  body,
}) => ({
  status: 200,
  body: nativeOk(
    await deps.chatRooms.message(
      requirePrincipal(principal),
      requestId,
      params.chat_id,
      body!,
      UNCANCELLABLE,
      deps.chainHooks(requestId, body!.model),
    ),
  ),
});

/** SPEC 2.8: a failed job is a 200 with `status: failed`, not an HTTP error. */
export const getChatImageJob: Handler<'getChatImageJob'> = async ({ deps, principal, params }) => ({
  status: 200,
  body: nativeOk(await deps.chatRooms.imageJob(requirePrincipal(principal), params.chat_id, params.job_id)),
});
