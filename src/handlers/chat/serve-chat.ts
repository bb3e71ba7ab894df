import type { Request, Response } from 'express';
import type { Deps } from '../../composition/index.js';
import type { ChatBody } from '../../domain/chat/chat-service.js';
import { chatUsage, completionBody } from '../../domain/chat/completion-body.js';
import { servedByKeepAlive } from '../../domain/chat/keep-alive-path.js';
import { StreamSession, type StreamSessionDeps } from '../../domain/chat/stream-session.js';
import type { Principal } from '../../domain/keys/authenticator.js';
import { chatChunkFormat } from '../../http/chat-chunk-format.js';
import { serveStream } from '../../http/chat-stream.js';
import { abortWhenClientLeaves } from '../../http/client-abort.js';
import { serveKeepAlive } from '../../http/keep-alive.js';
import { nativeOk } from '../../http/native-ok.js';
import { SENT, type Sent } from '../../http/operation-types.js';
import { UNCANCELLABLE } from '../../lib/cancel-signal.js';

/** What a stream needs of the container. */
export function streamDeps(deps: Deps): StreamSessionDeps {
  return {
    chat: deps.chat,
    throughput: deps.throughput,
    now: deps.now,
    firstTokenTimeoutMs: deps.config.STREAM_FIRST_TOKEN_TIMEOUT_MS,
  };
}

export interface ChatContext {
  deps: Deps;
  principal: Principal;
  requestId: string;
  body: ChatBody;
  req: Request;
  res: Response;
}

/**
 * Both chat surfaces (SPEC 4.2): a stream, the keep-alive path, or a plain JSON completion. Returns the body
 * for the plain case, or what was written here (a keep-alive success may be replayed for an Idempotency-Key).
 */
export async function serveChat(
  ctx: ChatContext,
  surface: 'compat' | 'native',
): Promise<{ body: Record<string, unknown> } | { sent: Sent }> {
  const { deps, principal, requestId, body, req, res } = ctx;
  const stream = body.stream === true;
  const prepared = await deps.chat.prepare(principal, requestId, body, stream);
  const hooks = deps.chainHooks(requestId, prepared.entry.slug);
  if (stream) {
    const session = new StreamSession(prepared, hooks, abortWhenClientLeaves(req, res), streamDeps(deps));
    await serveStream(res, session, chatChunkFormat(prepared, deps.now));
    return { sent: SENT };
  }
  const produce = async () => {
    const { completion, usage, charge } = await deps.chat.complete(prepared, UNCANCELLABLE, hooks);
    const result = completionBody(completion, prepared.entry.slug, chatUsage(usage, charge, surface));
    return surface === 'native' ? nativeOk(result) : result;
  };
  if (servedByKeepAlive(prepared)) {
    const written = await serveKeepAlive(res, requestId, deps.config.KEEP_ALIVE_INTERVAL_MS, produce, (err) =>
      deps.logger.error({ err, requestId }, 'keep-alive chat failed'),
    );
    return { sent: written.ok ? { status: 'sent', replayable: written.body } : SENT };
  }
  return { body: await produce() };
}
