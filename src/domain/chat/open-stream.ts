import type { components } from '../../../generated/openapi.js';
import { type StreamEvent, UpstreamError } from '../../adapters/upstream/index.js';
import { ApiError } from '../../errors/api-error.js';
import type { CancelSignal } from '../../lib/cancel-signal.js';
import type { Route } from '../routing/route-table.js';
import { type ChainHooks, type ExhaustionInfo, runChain } from '../routing/run-chain.js';
import { emptyStreamError, openingStreamError } from './stream-error.js';
import { type ChunkInfo, inspectChunk } from './stream-events.js';

/**
 * Every route was asked and none sent a first token: the stream still opens, to say so in its one error frame
 * (SPEC 3.4, 6.2). Verdicts on the request itself (a content filter, the client gone) stay ordinary errors.
 */
export class StreamNotOpened extends Error {
  constructor(readonly frame: components['schemas']['StreamError']) {
    super(frame.message);
    this.name = 'StreamNotOpened';
  }
}

/** An upstream that has proved it is answering: what it sent so far, and the rest to come. */
export interface OpenedStream {
  route: Route;
  /** Events received up to and including the first answering one, held until then (SPEC 3.4). */
  held: { event: StreamEvent; info: ChunkInfo }[];
  rest: AsyncIterator<StreamEvent>;
  /** When the first answering event arrived (time to first token). */
  firstTokenAtMs: number;
}

export interface OpenStreamOptions {
  body: Record<string, unknown>;
  maxOutputTokens: number;
  signal: CancelSignal;
  /** How long an upstream may stay silent after accepting before the next one is tried. */
  firstTokenTimeoutMs: number;
  now: () => number;
  hooks: ChainHooks;
}

const SILENT = 'accepted the stream, then sent no token';

/** Reads events until one proves the upstream is answering; silence or an empty end is a failure. */
async function awaitFirstToken(
  route: Route,
  rest: AsyncIterator<StreamEvent>,
  options: OpenStreamOptions,
): Promise<OpenedStream> {
  const held: OpenedStream['held'] = [];
  // The first token is awaited no longer than its own timeout, nor past the request's deadline (SPEC 8).
  const deadline = Math.min(options.now() + options.firstTokenTimeoutMs, options.hooks.deadlineAtMs);
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const silence = new Promise<'silent'>((resolve) => {
      timer = setTimeout(() => resolve('silent'), Math.max(0, deadline - options.now()));
    });
    const next = await Promise.race([rest.next(), silence]).finally(() => clearTimeout(timer));
    if (next === 'silent' || next.done) {
      void rest.return?.();
      throw new UpstreamError({ kind: 'timeout', message: `${route.providerName} ${SILENT}` });
    }
    const info = inspectChunk(next.value.data);
    held.push({ event: next.value, info });
    if (info.error !== null) {
      void rest.return?.();
      throw new UpstreamError({ ...info.error, message: `${route.providerName}: ${info.error.message}` });
    }
    if (info.answering) return { route, held, rest, firstTokenAtMs: options.now() };
  }
}

/**
 * SPEC 3.4 "stream opening": walk the chain; each upstream must accept the stream and then send a token
 * within `firstTokenTimeoutMs`, else the next one is tried. Nothing reaches the client before that, so a
 * failover is invisible. When every route failed, StreamNotOpened carries the frame the caller writes:
 * `empty_upstream_stream` when every upstream accepted and stayed silent, else the SPEC 6.2 frame of their
 * failures (issue 24 item 7).
 */
export async function openStream(chain: Route[], options: OpenStreamOptions): Promise<OpenedStream> {
  let silentRoutes = 0;
  let exhaustion: ExhaustionInfo | undefined;
  const hooks: ChainHooks = {
    ...options.hooks,
    onExhausted: (info) => {
      exhaustion = info;
      options.hooks.onExhausted(info);
    },
  };
  try {
    const { value } = await runChain(
      chain,
      async (route) => {
        const { body, maxOutputTokens, signal, hooks } = options;
        const call = {
          upstreamModel: route.upstreamModel,
          body,
          maxOutputTokens,
          signal,
          deadlineAtMs: hooks.deadlineAtMs,
        };
        const stream = await route.provider.chatStream!(call);
        try {
          return await awaitFirstToken(route, stream.events[Symbol.asyncIterator](), options);
        } catch (err) {
          // Accepted, then silence, an idle timeout or a closed connection before any token: SPEC 7.2's
          // "accepted then closed the stream without a token", whichever way it ended.
          if (err instanceof UpstreamError && err.failure.kind !== 'aborted') silentRoutes++;
          throw err;
        }
      },
      hooks,
    );
    return value;
  } catch (err) {
    if (!(err instanceof ApiError) || exhaustion === undefined) throw err;
    if (silentRoutes === chain.length) throw new StreamNotOpened(emptyStreamError());
    throw new StreamNotOpened(openingStreamError(exhaustion.failures.map((f) => f.failure)));
  }
}
