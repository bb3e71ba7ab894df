import type { Response } from 'express';
import { UpstreamError, type StreamEvent, type Usage } from '../adapters/upstream/index.js';
import type { ChatService, PreparedChat } from '../domain/chat/chat-service.js';
import { openStream, type OpenedStream } from '../domain/chat/open-stream.js';
import { emptyStreamFrame, streamErrorFrame } from '../domain/chat/stream-error-frame.js';
import { inspectChunk, type ChunkInfo } from '../domain/chat/stream-events.js';
import { microsToUsd } from '../domain/money.js';
import { NO_DISCOUNTS, textCost } from '../domain/pricing/index.js';
import type { ChainHooks } from '../domain/routing/run-chain.js';
import type { ThroughputTracker } from '../domain/throughput.js';
import { ApiError } from '../errors/api-error.js';
import { SseWriter } from './sse-writer.js';
import type { CancelSignal } from '../cancel-signal.js';

export interface StreamDeps {
  chat: ChatService;
  throughput: ThroughputTracker;
  now: () => number;
  firstTokenTimeoutMs: number;
}

/** The stream as it is forwarded: text for counting, the usage the upstream reported, its last chunk's frame. */
interface Progress {
  text: string;
  usage: Usage | null;
  /** The last chunk seen, used as the template of the usage chunk (id, created, model). */
  template: Record<string, unknown> | null;
}

/**
 * Forwards one event. Usage is taken out of the stream and sent once at the end with `cost` added (SPEC 2.6:
 * "for streams, the list-price estimate"), and only when the client asked for it; every other frame is
 * forwarded byte for byte.
 */
function forward(writer: SseWriter, event: StreamEvent, info: ChunkInfo, progress: Progress): void {
  progress.text += info.text;
  if (info.usage === null) {
    writer.data(event.data);
    return;
  }
  progress.usage = info.usage;
  const chunk = JSON.parse(event.data) as Record<string, unknown>;
  progress.template = chunk;
  const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
  if (choices.length > 0) writer.data(JSON.stringify({ ...chunk, usage: undefined }));
}

function usageChunk(prepared: PreparedChat, progress: Progress, usage: Usage, nowMs: number): string {
  // The list-price estimate (SPEC 2.6), but never above what the caller can be charged: its hold.
  const listCost = textCost(prepared.entry, usage, NO_DISCOUNTS, { cachedDiscountApplies: false });
  const shown = listCost < prepared.reservation.amountMicros ? listCost : prepared.reservation.amountMicros;
  const template = progress.template ?? { id: `chatcmpl-${prepared.requestId}`, object: 'chat.completion.chunk', created: Math.floor(nowMs / 1000), model: prepared.entry.slug };
  return JSON.stringify({
    ...template,
    choices: [],
    usage: {
      prompt_tokens: usage.promptTokens,
      completion_tokens: usage.completionTokens,
      total_tokens: usage.promptTokens + usage.completionTokens,
      prompt_tokens_details: { cached_tokens: usage.cachedTokens },
      completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
      cost: microsToUsd(shown),
    },
  });
}

/**
 * SPEC 3.4 end to end: hold the first bytes until an upstream answers (failing over while it is silent),
 * then forward; a stream that dies ends with one error frame and `[DONE]` and is not billed; a stream that
 * ends normally is billed on its usage (counted by us when the upstream sent none). Never ends silently.
 */
export async function serveChatStream(res: Response, prepared: PreparedChat, signal: CancelSignal, hooks: ChainHooks, deps: StreamDeps): Promise<void> {
  const dispatchedAtMs = deps.now();
  let opened: OpenedStream;
  try {
    opened = await openStream(prepared.chain, {
      body: prepared.upstreamBody,
      maxOutputTokens: prepared.maxOutputTokens,
      signal,
      firstTokenTimeoutMs: deps.firstTokenTimeoutMs,
      now: deps.now,
      hooks,
    });
  } catch (err) {
    await deps.chat.release(prepared);
    if (!(err instanceof ApiError && err.code === 'empty_upstream_stream')) throw err; // still a plain JSON error
    const writer = new SseWriter(res);
    writer.open();
    writer.data(JSON.stringify(emptyStreamFrame()));
    writer.done();
    return;
  }
  const stopKeepingHold = deps.chat.keepHold(prepared);
  try {
    await forwardOpened(res, prepared, opened, signal, dispatchedAtMs, deps);
  } finally {
    stopKeepingHold();
  }
}

/** The stream after its first token: forwarded until it ends, then settled on what was delivered, or released. */
async function forwardOpened(res: Response, prepared: PreparedChat, opened: OpenedStream, signal: CancelSignal, dispatchedAtMs: number, deps: StreamDeps): Promise<void> {
  const writer = new SseWriter(res);
  writer.open();
  const progress: Progress = { text: '', usage: null, template: null };
  for (const { event, info } of opened.held) forward(writer, event, info, progress);
  try {
    for (let next = await opened.rest.next(); !next.done; next = await opened.rest.next()) {
      const info = inspectChunk(next.value.data);
      // An error sent inside the stream ends it like a broken connection: mapped frame, [DONE], not billed.
      if (info.error !== null) throw new UpstreamError(info.error);
      forward(writer, next.value, info, progress);
    }
  } catch (err) {
    void opened.rest.return?.();
    if (signal.aborted) return settleDelivered(prepared, progress, opened, deps); // the client left: bill what it got
    writer.data(JSON.stringify(streamErrorFrame(err)));
    writer.done();
    await deps.chat.release(prepared);
    return;
  }
  const usage = progress.usage ?? deps.chat.countedUsage(prepared, progress.text);
  if (prepared.includeUsage) writer.data(usageChunk(prepared, progress, usage, deps.now()));
  writer.done();
  deps.throughput.record(prepared.entry.slug, {
    outputTokens: usage.completionTokens,
    firstTokenMs: opened.firstTokenAtMs - dispatchedAtMs,
    streamMs: deps.now() - opened.firstTokenAtMs,
  });
  await deps.chat.settleStream(prepared, usage, opened.route);
}

async function settleDelivered(prepared: PreparedChat, progress: Progress, opened: OpenedStream, deps: StreamDeps): Promise<void> {
  await deps.chat.settleStream(prepared, progress.usage ?? deps.chat.countedUsage(prepared, progress.text), opened.route);
}
