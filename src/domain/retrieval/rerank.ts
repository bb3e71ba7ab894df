import type { components } from '../../../generated/openapi.js';
import type { CancelSignal } from '../../lib/cancel-signal.js';
import { copyWith } from '../../lib/copy-with.js';
import type { Billing } from '../billing/billing.js';
import { microsToUsd } from '../billing/money.js';
import type { ModelCatalog } from '../catalog/model-catalog.js';
import { resolveRetrievalModel } from '../catalog/model-resolution.js';
import type { Principal } from '../keys/authenticator.js';
import { retrievalHoldFor } from '../paid-call/hold-rules.js';
import { runPaidCall } from '../paid-call/paid-call.js';
import { retrievalCost } from '../pricing/index.js';
import type { RouteTable } from '../routing/route-table.js';
import type { ChainHooks } from '../routing/run-chain.js';
import { validateRerank } from '../text/chat-validation.js';
import type { TokenCounter } from '../text/token-counter.js';

type RerankRequest = components['schemas']['RerankRequest'];
type RerankResponse = components['schemas']['RerankResponse'];

/**
 * SPEC 2.3, 2.4, 4.1: sorted by relevance, `top_n`, `return_documents`; billed on the query plus documents.
 * Documents arrive as strings or `{text}` objects and are ranked (and billed) as their text cut to
 * `max_tokens_per_doc`; the answer has Cohere's `id` and `meta.billed_units` too, which its clients read.
 */
export async function createRerank(
  deps: { catalog: ModelCatalog; routes: RouteTable; billing: Billing; tokens: TokenCounter },
  principal: Principal,
  requestId: string,
  request: RerankRequest,
  signal: CancelSignal,
  hooks: ChainHooks,
): Promise<RerankResponse> {
  const entry = resolveRetrievalModel(deps.catalog, request.model, 'rerank');
  const texts = request.documents.map((doc) => (typeof doc === 'string' ? doc : doc.text));
  validateRerank(entry, request.query, texts);
  const cap = request.max_tokens_per_doc;
  const { value, bill, charge } = await runPaidCall(
    deps.billing,
    { principal, requestId, holdFor: retrievalHoldFor(entry, principal.account) },
    {
      count: async (floorCheck) => {
        const options = { owner: principal.accountId, floorCheck };
        const documents = cap === undefined ? texts : await deps.tokens.truncate(texts, cap, options);
        const [queryTokens = 0, ...documentTokens] = await deps.tokens.count([request.query, ...documents], options);
        // A cross-encoder reads the query once per document: that is how the model counts (SPEC 4.1.3).
        const tokens = queryTokens * documents.length + documentTokens.reduce((sum, n) => sum + n, 0);
        return { tokens, documents, chain: deps.routes.chain(entry.slug, 'rerank') };
      },
      attempt: (route, { documents }) => {
        const call = {
          upstreamModel: route.upstreamModel,
          query: request.query,
          documents,
          signal,
          deadlineAtMs: hooks.deadlineAtMs,
        };
        return route.provider.rerank!(request.top_n ? copyWith(call, { topN: request.top_n }) : call);
      },
      hooks,
      bill: (reranked, route, { tokens, documents }) => {
        const promptTokens = reranked.promptTokens ?? tokens;
        return {
          promptTokens,
          documents,
          costMicros: retrievalCost(entry, promptTokens, principal.account),
          details: {
            model: entry.slug,
            kind: 'rerank' as const,
            endpoint: 'rerank',
            promptTokens,
            metadata: { provider: route.providerName, documents: documents.length },
          },
        };
      },
    },
  );
  const { promptTokens, documents } = bill;
  const ranked = [...value.results]
    .filter((r) => Number.isInteger(r.index) && r.index >= 0 && r.index < documents.length)
    .sort((a, b) => b.relevanceScore - a.relevanceScore || a.index - b.index)
    .slice(0, request.top_n ?? documents.length);
  return {
    id: requestId,
    results: ranked.map((r) => ({
      index: r.index,
      relevance_score: r.relevanceScore,
      ...(request.return_documents ? { document: { text: texts[r.index] ?? '' } } : {}),
    })),
    model: entry.slug,
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens, cost: microsToUsd(charge.costMicros) },
    meta: { billed_units: { input_tokens: promptTokens } },
  };
}
