import type { components } from '../../../generated/openapi.js';
import { type StreamEvent, UpstreamError, type Usage } from '../../adapters/upstream/index.js';
import { type CancelSignal, UNCANCELLABLE } from '../../lib/cancel-signal.js';
import type { Micros } from '../billing/money.js';
import type { ThroughputTracker } from '../catalog/throughput.js';
import type { ChainHooks } from '../routing/run-chain.js';
import type { ChatService, PreparedChat } from './chat-service.js';
import { type OpenedStream, openStream, StreamNotOpened } from './open-stream.js';
import { streamError } from './stream-error.js';
import { type ChunkInfo, inspectChunk } from './stream-events.js';

/**
 * What a stream writes, in the order its session decides (SPEC 6.2): the http layer turns each into bytes (chat
 * chunks or Responses events) and decides nothing (DESIGN.md 2: http never prices, holds or settles).
 */
export interface StreamFrames {
  /** The 200 and what the format sends before its first chunk. */
  open(): void;
  /** One upstream chat chunk, as read. */
  chunk(event: StreamEvent, info: ChunkInfo): void;
  /** The normal end: the usage billed, and `cost` as streams show it (the list-price estimate within the hold). */
  end(usage: Usage, costMicros: Micros): void;
  /** The failed end: one error, nothing billed. */
  fail(error: components['schemas']['StreamError']): void;
  /** The `[DONE]` terminator every stream ends with, whatever happened before it (SPEC 3.4). */
  close(): void;
}

/** The chat flow's money calls a stream makes. */
export type StreamBilling = Pick<
  ChatService,
  'release' | 'keepHold' | 'countedUsage' | 'settleStream' | 'listCostEstimate'
>;

export interface StreamSessionDeps {
  chat: StreamBilling;
  throughput: Pick<ThroughputTracker, 'record'>;
  now: () => number;
  /** How long an upstream may stay silent after accepting before the next route is tried (SPEC 3.4). */
  firstTokenTimeoutMs: number;
}

/**
 * One streamed chat request's billing, SPEC 3.4 end to end: hold the first bytes until an upstream answers
 * (failing over while it is silent), then forward; a stream that dies, or whose every route failed before a token,
 * ends with one error frame and `[DONE]` (SPEC 6.2) and its hold is released; a stream that ends normally is
 * settled on its usage (counted by us when the upstream sent none), durably before its last frames go out. A client
 * that left does not stop the upstream: it is read to its end within the request's deadline and billed, since it
 * did the work (work done is work billed).
 */
export class StreamSession {
  #text = '';
  #reported: Usage | null = null;

  constructor(
    private readonly prepared: PreparedChat,
    private readonly hooks: ChainHooks,
    /** Says the client left; it ends nothing by itself (see above). */
    private readonly clientGone: CancelSignal,
    private readonly deps: StreamSessionDeps,
  ) {}

  /** Runs the stream to its end, writing through `frames`; throws only a verdict on the request before any byte. */
  async serve(frames: StreamFrames): Promise<void> {
    const dispatchedAtMs = this.deps.now();
    const opened = await this.#open(frames);
    if (opened === null) return;
    // The hold's own deadline would end at the first token; a stream may run longer (DESIGN.md 4).
    const stopKeepingHold = this.deps.chat.keepHold(this.prepared);
    try {
      frames.open();
      for (const { event, info } of opened.held) this.#chunk(frames, event, info);
      try {
        await this.#readToEnd(frames, opened.rest);
      } catch (err) {
        void opened.rest.return?.();
        await this.#failed(frames, err);
        return;
      }
      await this.#done(frames, opened, dispatchedAtMs);
    } finally {
      stopKeepingHold();
    }
  }

  /**
   * Stream opening (SPEC 3.4): nothing is written until an upstream answers. When none does, the hold is released
   * before any byte; an all-routes failure is then told in a frame, a verdict on the request (a content filter)
   * stays a plain error for the caller to answer.
   */
  async #open(frames: StreamFrames): Promise<OpenedStream | null> {
    try {
      return await openStream(this.prepared.chain, {
        body: this.prepared.upstreamBody,
        maxOutputTokens: this.prepared.maxOutputTokens,
        signal: UNCANCELLABLE,
        firstTokenTimeoutMs: this.deps.firstTokenTimeoutMs,
        now: this.deps.now,
        hooks: this.hooks,
      });
    } catch (err) {
      await this.deps.chat.release(this.prepared);
      if (!(err instanceof StreamNotOpened)) throw err;
      frames.open();
      frames.fail(err.frame);
      frames.close();
      return null;
    }
  }

  /** Forwards the rest of an opened stream; an error sent inside it ends it like a broken connection. */
  async #readToEnd(frames: StreamFrames, rest: AsyncIterator<StreamEvent>): Promise<void> {
    for (let next = await rest.next(); !next.done; next = await rest.next()) {
      const info = inspectChunk(next.value.data);
      if (info.error !== null) throw new UpstreamError(info.error);
      this.#chunk(frames, next.value, info);
      if (this.#clientLeftAndTimeIsUp()) {
        void rest.return?.();
        return;
      }
    }
  }

  /** A chunk is forwarded, and what it says counts toward the bill. */
  #chunk(frames: StreamFrames, event: StreamEvent, info: ChunkInfo): void {
    this.#text += info.text;
    this.#reported = info.usage ?? this.#reported;
    frames.chunk(event, info);
  }

  /** A client that left is read for no longer than the request's deadline; what was read by then is billed. */
  #clientLeftAndTimeIsUp(): boolean {
    return this.clientGone.aborted && this.deps.now() >= this.hooks.deadlineAtMs;
  }

  /** SPEC 3.4, 6.2: the upstream died mid-stream: one error frame, `[DONE]`, and nothing billed. */
  async #failed(frames: StreamFrames, err: unknown): Promise<void> {
    frames.fail(streamError(err));
    frames.close();
    await this.deps.chat.release(this.prepared);
  }

  /** The normal end: settled on what was read (durably), then the last frames; its speed is recorded. */
  async #done(frames: StreamFrames, opened: OpenedStream, dispatchedAtMs: number): Promise<void> {
    const { chat } = this.deps;
    // What was read is billed: the upstream's usage, or our count of the prompt and of the text that came.
    const usage = this.#reported ?? (await chat.countedUsage(this.prepared, this.#text));
    await chat.settleStream(this.prepared, usage, opened.route);
    frames.end(usage, chat.listCostEstimate(this.prepared, usage));
    frames.close();
    this.deps.throughput.record(this.prepared.entry.slug, {
      outputTokens: usage.completionTokens,
      firstTokenMs: opened.firstTokenAtMs - dispatchedAtMs,
      streamMs: this.deps.now() - opened.firstTokenAtMs,
    });
  }
}
