/**
 * POST /v1/ai/recommendation (SPEC 1.5, 2.13; research/marketplace.md §5): the query read into constraints without a
 * model, matched against the offers online now, and a short text written from the ranked facts, by the
 * deployment's recommendation model when one is configured (a chat completion billed to the caller through the
 * ordinary chat flow: hold, settlement, usage line), else by a template, free.
 */
import type { Logger } from 'pino';
import type { MarketStore, OfferRecord, OfferSort } from '../../adapters/market-store/index.js';
import { ApiError, orUnavailable } from '../../errors/api-error.js';
import type { ErrorCode } from '../../errors/catalog.js';
import type { CancelSignal } from '../../lib/cancel-signal.js';
import type { Micros } from '../billing/money.js';
import type { ModelCatalog } from '../catalog/model-catalog.js';
import { type ChatService, completionText } from '../chat/chat-service.js';
import type { Principal } from '../keys/authenticator.js';
import type { ChainHooks } from '../routing/run-chain.js';
import { searchOffers } from './offers.js';
import { parseRecommendationQuery, type RecommendationConstraints } from './recommendation-query.js';
import { type Ranking, rankOffers } from './recommendation-ranking.js';
import { recommendationPrompt, rulesText } from './recommendation-text.js';

/**
 * Offers read per ordering: the cheapest and the largest-memory ones, so a big marketplace's premium GPUs are not
 * crowded out of the ranking by its cheapest ones.
 */
const SCAN_LIMIT = 500;
/** The model's output cap (and so its hold): room for a short text, and for a reasoning model's thinking before it. */
const MAX_OUTPUT_TOKENS = 4096;

/**
 * Failures on the model's side (SPEC 7.2): its upstreams, its routing or its availability. The rules write the text
 * instead and the hold was released, so nothing is charged. Billing refusals (402, 503) are the caller's answer.
 */
const MODEL_SIDE_FAILURES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'upstream_timeout',
  'upstream_rate_limit',
  'upstream_bad_response',
  'upstream_server_error',
  'provider_unavailable',
  'content_filter',
  'model_disabled',
  'no_provider_available',
  'gateway_misconfigured',
]);

export interface RecommendationDeps {
  store: MarketStore;
  chat: ChatService;
  catalog: ModelCatalog;
  now: () => number;
  logger: Logger;
  settings: {
    /** MACHINE_OFFLINE_MS: offers of machines not heard from within it are not on offer. */
    offlineAfterMs: number;
    /** RECOMMENDATION_MODEL: the chat model that writes the text; undefined: the template does. */
    model: string | undefined;
  };
}

export interface Recommendation {
  text: string;
  writtenBy: 'model' | 'rules';
  /** The catalog slug, when the model wrote the text. */
  model: string | null;
  costMicros: Micros;
  constraints: RecommendationConstraints;
  ranking: Ranking;
}

export class Recommendations {
  private readonly maxOutputTokens: number;

  constructor(private readonly deps: RecommendationDeps) {
    const model = deps.settings.model;
    const entry = model === undefined ? undefined : deps.catalog.find(model);
    // A mistake in the setting stops the start, naming it, rather than failing every call.
    if (model !== undefined && entry?.media_kind !== 'text')
      throw new Error(`${model} is not a chat model of the catalog`);
    this.maxOutputTokens = Math.min(MAX_OUTPUT_TOKENS, entry?.capabilities.max_output_tokens ?? MAX_OUTPUT_TOKENS);
  }

  async recommend(
    principal: Principal,
    requestId: string,
    query: string,
    signal: CancelSignal,
    hooks: (slug: string) => ChainHooks,
  ): Promise<Recommendation> {
    const offers = await this.offersOnline();
    const constraints = parseRecommendationQuery(query, [...new Set(offers.map((o) => o.gpuName))]);
    const ranking = rankOffers(offers, constraints);
    const rules = rulesText(constraints, ranking, offers.length);
    const slug = this.deps.settings.model;
    // Nothing on offer: there is nothing for a model to weigh, and the caller is not charged for being told so.
    if (slug === undefined || offers.length === 0)
      return { text: rules, writtenBy: 'rules', model: null, costMicros: 0n, constraints, ranking };
    const written = await this.byModel(
      principal,
      requestId,
      slug,
      recommendationPrompt(query, constraints, ranking),
      signal,
      hooks(slug),
    );
    if (written === null) return { text: rules, writtenBy: 'rules', model: null, costMicros: 0n, constraints, ranking };
    // A model that answered nothing was still paid for its tokens; the template's text stands in.
    if (written.text === '')
      return { text: rules, writtenBy: 'rules', model: null, costMicros: written.costMicros, constraints, ranking };
    return {
      text: written.text,
      writtenBy: 'model',
      model: written.slug,
      costMicros: written.costMicros,
      constraints,
      ranking,
    };
  }

  /** The offers SPEC 1.2 shows now (online, listed, with free GPUs), cheapest and largest first, once each. */
  private async offersOnline(): Promise<OfferRecord[]> {
    const scan = (sort: OfferSort) =>
      searchOffers(
        this.deps.store,
        { verifiedOnly: false, minFreeGpus: 1, sort, limit: SCAN_LIMIT, offset: 0 },
        this.deps.now(),
        this.deps.settings.offlineAfterMs,
      );
    const [cheapest, largest] = await orUnavailable(() => Promise.all([scan('price'), scan('-vram')]), 'market store');
    return [...new Map([...cheapest.offers, ...largest.offers].map((offer) => [offer.id, offer])).values()];
  }

  /** A chat completion billed like any other (SPEC 4.2); null when the model's side failed and nothing was charged. */
  private async byModel(
    principal: Principal,
    requestId: string,
    slug: string,
    messages: ReturnType<typeof recommendationPrompt>,
    signal: CancelSignal,
    hooks: ChainHooks,
  ): Promise<{ text: string; slug: string; costMicros: Micros } | null> {
    try {
      const prepared = await this.deps.chat.prepare(
        principal,
        requestId,
        { model: slug, messages, max_tokens: this.maxOutputTokens },
        false,
      );
      const { completion, charge } = await this.deps.chat.complete(prepared, signal, hooks);
      return { text: completionText(completion).trim(), slug: prepared.entry.slug, costMicros: charge.costMicros };
    } catch (err) {
      if (!(err instanceof ApiError) || !MODEL_SIDE_FAILURES.has(err.code)) throw err;
      this.deps.logger.warn({ err, requestId, model: slug }, 'recommendation model failed; the rules wrote the text');
      return null;
    }
  }
}
