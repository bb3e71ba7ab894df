import type { Response } from 'express';
import type { components } from '../../generated/openapi.js';
import { type StreamEvent, UpstreamError, type Usage } from '../adapters/upstream/index.js';
import type { ThroughputTracker } from '../domain/catalog/throughput.js';
import type { ChatService, PreparedChat } from '../domain/chat/chat-service.js';
import { type OpenedStream, openStream, StreamNotOpened } from '../domain/chat/open-stream.js';
import { streamError } from '../domain/chat/stream-error.js';
import { type ChunkInfo, inspectChunk } from '../domain/chat/stream-events.js';
import type { ChainHooks } from '../domain/routing/run-chain.js';
import { type CancelSignal, UNCANCELLABLE } from '../lib/cancel-signal.js';
import { SseWriter } from './sse-writer.js';

export interface StreamDeps {
  chat: ChatService;
  throughput: ThroughputTracker;
  now: () => number;
  firstTokenTimeoutMs: number;
}

/**
 * How an opened stream looks on the wire: chat chunks forwarded (SPEC 6.2) or Responses events (SPEC 4.2).
 * The pipeline below decides what happens; a format only writes it.
 */
export interface StreamFormat {
  /** What goes out when the stream opens, before its first chunk. */
  open(): void;
  /** One upstream chat chunk, as read. */
  chunk(event: StreamEvent, info: ChunkInfo): void;
  /** The normal end: the usage billed, and `cost` as streams show it (the list-price estimate within the hold). */
  end(usage: Usage, costMicros: bigint): void;
  /** The failed end: one error, nothing billed. */
  fail(error: components['schemas']['StreamError']): void;
}

/** A format writes through the stream's writer; the pipeline opens it and sends the terminator. */
export type StreamFormatFactory = (writer: SseWriter) => StreamFormat;

/**
 * SPEC 3.4 end to end: hold the first bytes until an upstream answers (failing over while it is silent),
 * then forward; a stream that dies, or whose every route failed before a token, ends with one error frame and
 * `[DONE]` (SPEC 6.2) and is not billed; a stream that ends normally is billed on its usage (counted by us when
 * the upstream sent none), durably before its last frames go out, and never ends silently. `clientGone` only
 * says the client left: the upstream is read to its end all the same (within the request's deadline) and
 * billed, since it did the work (issue "work done is work billed").
 */
export async function serveStream(
  res: Response,
  prepared: PreparedChat,
  clientGone: CancelSignal,
  hooks: ChainHooks,
  deps: StreamDeps,
  formatFor: StreamFormatFactory,
): Promise<void> {
  const dispatchedAtMs = deps.now();
  let opened: OpenedStream;
  try {
    opened = await openStream(prepared.chain, {
      body: prepared.upstreamBody,
      maxOutputTokens: prepared.maxOutputTokens,
      signal: UNCANCELLABLE,
      firstTokenTimeoutMs: deps.firstTokenTimeoutMs,
      now: deps.now,
      hooks,
    });
  } catch (err) {
    await deps.chat.release(prepared);
    // A verdict on the request (content filter) is still a plain JSON error; an all-routes failure is a frame.
    if (!(err instanceof StreamNotOpened)) throw err;
    const writer = new SseWriter(res);
    const format = formatFor(writer);
    writer.open();
    format.open();
    format.fail(err.frame);
    writer.done();
    return;
  }
  const stopKeepingHold = deps.chat.keepHold(prepared);
  try {
    await forwardOpened(
      new SseWriter(res),
      formatFor,
      prepared,
      opened,
      { clientGone, dispatchedAtMs, deadlineAtMs: hooks.deadlineAtMs },
      deps,
    );
  } finally {
    stopKeepingHold();
  }
}

interface StreamTimes {
  clientGone: CancelSignal;
  dispatchedAtMs: number;
  /** The request's deadline: a stream whose client left is read no longer than this. */
  deadlineAtMs: number;
}

/** The stream after its first token: forwarded until it ends, then settled on what was delivered, or released. */
async function forwardOpened(
  writer: SseWriter,
  formatFor: StreamFormatFactory,
  prepared: PreparedChat,
  opened: OpenedStream,
  times: StreamTimes,
  deps: StreamDeps,
): Promise<void> {
  const format = formatFor(writer);
  writer.open();
  format.open();
  let text = '';
  let reported: Usage | null = null;
  const forward = (event: StreamEvent, info: ChunkInfo): void => {
    text += info.text;
    reported = info.usage ?? reported;
    format.chunk(event, info);
  };
  for (const { event, info } of opened.held) forward(event, info);
  let cutAtDeadline = false;
  try {
    for (let next = await opened.rest.next(); !next.done; next = await opened.rest.next()) {
      const info = inspectChunk(next.value.data);
      // An error sent inside the stream ends it like a broken connection: mapped error, [DONE], not billed.
      if (info.error !== null) throw new UpstreamError(info.error);
      forward(next.value, info);
      if (times.clientGone.aborted && deps.now() >= times.deadlineAtMs) {
        cutAtDeadline = true;
        break;
      }
    }
  } catch (err) {
    void opened.rest.return?.();
    format.fail(streamError(err));
    writer.done();
    await deps.chat.release(prepared);
    return;
  }
  if (cutAtDeadline) void opened.rest.return?.();
  // What was read is billed: the upstream's usage, or our count of the prompt and of the text that came.
  const usage = reported ?? (await deps.chat.countedUsage(prepared, text));
  await deps.chat.settleStream(prepared, usage, opened.route);
  format.end(usage, deps.chat.listCostEstimate(prepared, usage));
  writer.done();
  deps.throughput.record(prepared.entry.slug, {
    outputTokens: usage.completionTokens,
    firstTokenMs: opened.firstTokenAtMs - times.dispatchedAtMs,
    streamMs: deps.now() - opened.firstTokenAtMs,
  });
}
