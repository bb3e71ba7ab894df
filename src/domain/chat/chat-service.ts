import type { MediaLoader } from '../../adapters/media-fetch/index.js';
import type { Usage } from '../../adapters/upstream/index.js';
import type { CancelSignal } from '../../lib/cancel-signal.js';
import { copyWith } from '../../lib/copy-with.js';
import type { Billing, Charge } from '../billing/billing.js';
import type { Micros } from '../billing/money.js';
import type { CatalogFileEntry } from '../catalog/catalog-file.js';
import type { ModelCatalog } from '../catalog/model-catalog.js';
import { resolveChatModel } from '../catalog/model-resolution.js';
import type { Principal } from '../keys/authenticator.js';
import { chatHoldOutputTokens } from '../paid-call/hold-rules.js';
import { PaidCall } from '../paid-call/paid-call.js';
import { NO_DISCOUNTS, textCost, textHoldEstimate } from '../pricing/index.js';
import type { Route, RouteTable } from '../routing/route-table.js';
import type { ChainHooks } from '../routing/run-chain.js';
import { validateChatMessages, validateContextWindow, validateOutputCap } from '../text/chat-validation.js';
import { imagePartsOf } from '../text/image-tokens.js';
import type { TokenCounter } from '../text/token-counter.js';
import { assertForwardable, forwardedFields } from './forwarded-fields.js';
import { type ImageHold, ImageHolds } from './image-holds.js';
import { assertImageLinksLoad } from './image-links.js';

export interface ChatSettings {
  maxMessageChars: number;
  /** Output cap assumed for the pre-flight hold when the request sets none and the catalog gives none. */
  defaultMaxOutputTokens: number;
}

/** A chat request that passed every check, with its route chain and its money reserved. */
export interface PreparedChat {
  entry: CatalogFileEntry;
  chain: Route[];
  /** The money held for it (DESIGN.md 3 "Pre-flight"): settled to the actual cost, or released. */
  call: PaidCall;
  principal: Principal;
  requestId: string;
  /** The prompt the hold covers: its text counted, its image parts by the model's rule (ImageHolds). */
  promptTokens: number;
  images: ImageHold;
  /** What the client asked for (the larger of max_tokens and max_completion_tokens); undefined when neither. */
  maxTokens: number | undefined;
  /** The output cap every upstream call carries, per choice: the client's, else the model's (SPEC 4.2). */
  maxOutputTokens: number;
  stream: boolean;
  /** The client asked for a usage chunk at the end of the stream. */
  includeUsage: boolean;
  /** What the upstream receives: the client's forwarded fields (forwarded-fields.ts), the output cap and stream flags; `model` is set per route. */
  upstreamBody: Record<string, unknown>;
}

export interface ChatBody {
  model?: string;
  messages: unknown[];
  max_tokens?: number;
  max_completion_tokens?: number;
  /** Choices to generate: each may produce the whole output cap. */
  n?: number;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [field: string]: unknown;
}

/**
 * The chat flow shared by both chat surfaces, Responses and chat jobs (SPEC 4.2): resolve and validate,
 * route, reserve the worst case, call the chain, settle to the real usage.
 */
export class ChatService {
  private readonly imageHolds = new ImageHolds();

  constructor(
    private readonly catalog: ModelCatalog,
    private readonly routes: RouteTable,
    private readonly billing: Billing,
    private readonly tokens: TokenCounter,
    private readonly settings: ChatSettings,
    /** Loads the image links of a chat (SSRF-safe) to check them before the hold. */
    private readonly media: MediaLoader,
  ) {}

  /** Every check that can fail before dispatch, in the order a client fixes them; then the hold (SPEC 4.2). */
  async prepare(principal: Principal, requestId: string, body: ChatBody, stream: boolean): Promise<PreparedChat> {
    const entry = resolveChatModel(this.catalog, body.model);
    validateChatMessages(body.messages, { maxMessageChars: this.settings.maxMessageChars });
    assertForwardable(body);
    const maxTokens = largerOf(body.max_tokens, body.max_completion_tokens);
    validateOutputCap(entry, maxTokens);
    // DESIGN.md 3 "Hold = ceiling": the upstream always gets an output cap, and the hold covers it for every choice.
    const maxOutputTokens = maxTokens ?? entry.capabilities.max_output_tokens ?? this.settings.defaultMaxOutputTokens;
    const holdFor = (promptTokens: number) =>
      textHoldEstimate(entry, promptTokens, chatHoldOutputTokens(maxOutputTokens, body.n), principal.account);
    const { call, counted } = await PaidCall.hold(
      this.billing,
      { principal, requestId, holdFor },
      async (floorCheck) => {
        const textTokens = await this.tokens.promptTokens(body, { owner: principal.accountId, floorCheck });
        // The context check reads the text only: an image's billed tokens are a price (gpt-4o-mini bills a tile as
        // 5,667), not the context it takes, and an upstream that finds the context too long refuses it, uncharged.
        validateContextWindow(entry, { promptTokens: textTokens, maxTokens });
        const images = this.imageHolds.hold(entry, imagePartsOf(body.messages));
        const chain = this.routes.chain(entry.slug, stream ? 'stream' : 'chat');
        // Fetches are the dearest check: only once the floor showed the account able to pay, and the model routed.
        await assertImageLinksLoad(this.media, body.messages);
        return { tokens: textTokens + images.tokens, images, chain };
      },
    );
    const { model: _model, max_tokens: _maxTokens, max_completion_tokens: _maxCompletionTokens, ...rest } = body;
    // Streams always ask the upstream for usage, so the bill never rests on our own count when it can be had.
    const upstreamBody = copyWith(
      forwardedFields(rest),
      stream
        ? { stream: true, stream_options: copyWith(body.stream_options ?? {}, { include_usage: true }) }
        : { stream: false },
    );
    const includeUsage = body.stream_options?.include_usage === true;
    return {
      entry,
      chain: counted.chain,
      call,
      principal,
      requestId,
      promptTokens: counted.tokens,
      images: counted.images,
      maxTokens,
      maxOutputTokens,
      stream,
      includeUsage,
      upstreamBody,
    };
  }

  /** Non-stream: the first route that answers wins; any exhaustion releases the hold (nothing charged). */
  async complete(
    prepared: PreparedChat,
    signal: CancelSignal,
    hooks: ChainHooks,
  ): Promise<{ completion: Record<string, unknown>; usage: Usage; charge: Charge }> {
    const { value, route } = await prepared.call.runChain(
      prepared.chain,
      (route) =>
        route.provider.chat!({
          upstreamModel: route.upstreamModel,
          body: prepared.upstreamBody,
          maxOutputTokens: prepared.maxOutputTokens,
          signal,
          deadlineAtMs: hooks.deadlineAtMs,
        }),
      hooks,
    );
    const usage = value.usage ?? (await this.countedUsage(prepared, completionText(value.completion)));
    this.learnImageSizes(prepared, usage);
    const cost = textCost(prepared.entry, usage, prepared.principal.account, {
      cachedDiscountApplies: route.cachedInputDiscount && value.cachedDiscountApplied,
    });
    const charge = await prepared.call.settle(cost, this.details(prepared, usage, route.providerName));
    return { completion: value.completion, usage, charge };
  }

  /** Settles a stream that ended (normally or because the client left) on what was delivered. */
  async settleStream(prepared: PreparedChat, usage: Usage, route: Route): Promise<Charge> {
    this.learnImageSizes(prepared, usage);
    const cost = textCost(prepared.entry, usage, prepared.principal.account, {
      cachedDiscountApplies: route.cachedInputDiscount && usage.cachedTokens > 0,
    });
    return prepared.call.settle(cost, this.details(prepared, usage, route.providerName));
  }

  /**
   * What a stream reports as `cost` before its charge lands (SPEC 2.6: "for streams, the list-price estimate"),
   * never above what the caller can be charged: its hold.
   */
  listCostEstimate(prepared: PreparedChat, usage: Usage): Micros {
    const listCost = textCost(prepared.entry, usage, NO_DISCOUNTS, { cachedDiscountApplies: false });
    const held = prepared.call.reservation.amountMicros;
    return listCost < held ? listCost : held;
  }

  /** Keeps the hold of a stream alive while it runs (the stream's own deadline ends at its first token). */
  keepHold(prepared: PreparedChat): () => void {
    return prepared.call.keepAlive();
  }

  /** A failed request costs nothing (SPEC 4.6, 3.4). */
  release(prepared: PreparedChat): Promise<void> {
    return prepared.call.release();
  }

  /** Bifrost's lesson (DESIGN.md 8): when the upstream omits usage, count the tokens ourselves. */
  async countedUsage(prepared: PreparedChat, completionText: string): Promise<Usage> {
    const [completionTokens = 0] = await this.tokens.count([completionText], { owner: prepared.principal.accountId });
    return { promptTokens: prepared.promptTokens, completionTokens, cachedTokens: 0, reasoningTokens: 0 };
  }

  /** An upstream that billed the image parts above their hold raises the hold of the next ones (ImageHolds). */
  private learnImageSizes(prepared: PreparedChat, usage: Usage): void {
    this.imageHolds.learn(prepared.entry.slug, prepared.images, prepared.promptTokens, usage.promptTokens);
  }

  private details(prepared: PreparedChat, usage: Usage, provider: string) {
    return {
      model: prepared.entry.slug,
      kind: 'chat' as const,
      endpoint: prepared.stream ? 'chat.completions.stream' : 'chat.completions',
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      cachedTokens: usage.cachedTokens,
      reasoningTokens: usage.reasoningTokens,
      metadata: { provider, request_id: prepared.requestId },
    };
  }
}

/** SPEC 4.2: with both spellings of the output cap, the larger one is what the client accepts paying for. */
function largerOf(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.max(a, b);
}

/** All text of a completion's choices, for counting when the upstream sent no usage. */
export function completionText(completion: Record<string, unknown>): string {
  const choices = Array.isArray(completion.choices)
    ? (completion.choices as { message?: { content?: unknown; tool_calls?: unknown } }[])
    : [];
  return choices
    .map(
      (c) =>
        `${typeof c.message?.content === 'string' ? c.message.content : ''}${c.message?.tool_calls ? JSON.stringify(c.message.tool_calls) : ''}`,
    )
    .join('');
}
