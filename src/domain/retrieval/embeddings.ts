import type { components } from '../../../generated/openapi.js';
import type { EmbeddingInput } from '../../adapters/upstream/index.js';
import type { CancelSignal } from '../../lib/cancel-signal.js';
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
import { checkEmbeddingTokens, validateEmbeddingInput } from '../text/chat-validation.js';
import type { TokenCounter } from '../text/token-counter.js';

type EmbeddingRequest = components['schemas']['EmbeddingRequest'];
type EmbeddingResponse = components['schemas']['EmbeddingResponse'];

/** SPEC 2.1: `base64` is the little-endian float32 bytes of the vector. */
export function toBase64(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, i) => bytes.writeFloatLE(value, i * 4));
  return bytes.toString('base64');
}

/**
 * A vector cut to `dimensions` and renormalised (what text-embedding-3 does with `dimensions`), for an
 * upstream that returned the native size anyway.
 */
export function shorten(vector: number[], dimensions: number | undefined): number[] {
  if (dimensions === undefined || vector.length <= dimensions) return vector;
  const cut = vector.slice(0, dimensions);
  const norm = Math.sqrt(cut.reduce((sum, v) => sum + v * v, 0)) || 1;
  return cut.map((v) => v / norm);
}

/** The four forms of `input` (text, texts, token ids, lists of token ids) as one input per vector. */
function embeddingInputs(input: EmbeddingRequest['input']): EmbeddingInput[] {
  if (typeof input === 'string') return [input];
  const [first] = input;
  return typeof first === 'number' ? [input as number[]] : (input as EmbeddingInput[]);
}

/** SPEC 2.1, 2.2, 4.1: validate, hold, embed on the chain, bill input tokens only, answer in order. */
export async function createEmbeddings(
  deps: { catalog: ModelCatalog; routes: RouteTable; billing: Billing; tokens: TokenCounter },
  principal: Principal,
  requestId: string,
  request: EmbeddingRequest,
  signal: CancelSignal,
  hooks: ChainHooks,
): Promise<EmbeddingResponse> {
  const entry = resolveRetrievalModel(deps.catalog, request.model, 'embedding');
  const inputs = embeddingInputs(request.input);
  validateEmbeddingInput(entry, inputs, request.dimensions);
  const texts = inputs.map((input) => (typeof input === 'string' ? input : ''));
  const options = {
    ...(request.dimensions ? { dimensions: request.dimensions } : {}),
    ...(request.user ? { user: request.user } : {}),
  };
  const { value, bill, charge } = await runPaidCall(
    deps.billing,
    { principal, requestId, holdFor: retrievalHoldFor(entry, principal.account) },
    {
      count: async (floorCheck) => {
        const textTokens = await deps.tokens.count(texts, { owner: principal.accountId, floorCheck });
        const tokens = checkEmbeddingTokens(entry, inputs, textTokens).reduce((a, b) => a + b, 0);
        return { tokens, chain: deps.routes.chain(entry.slug, 'embed') };
      },
      attempt: (route) =>
        route.provider.embed!({
          upstreamModel: route.upstreamModel,
          input: inputs,
          ...options,
          signal,
          deadlineAtMs: hooks.deadlineAtMs,
        }),
      hooks,
      bill: (embedded, route, { tokens }) => {
        const promptTokens = embedded.promptTokens ?? tokens;
        return {
          promptTokens,
          costMicros: retrievalCost(entry, promptTokens, principal.account),
          details: {
            model: entry.slug,
            kind: 'embedding' as const,
            endpoint: 'embeddings',
            promptTokens,
            metadata: {
              provider: route.providerName,
              inputs: inputs.length,
              ...(request.user ? { user: request.user } : {}),
            },
          },
        };
      },
    },
  );
  const { promptTokens } = bill;
  const base64 = request.encoding_format === 'base64';
  return {
    object: 'list',
    model: entry.slug,
    data: value.vectors.map((vector, index) => {
      const shaped = shorten(vector, request.dimensions);
      return { object: 'embedding' as const, index, embedding: base64 ? toBase64(shaped) : shaped };
    }),
    usage: { prompt_tokens: promptTokens, total_tokens: promptTokens, cost: microsToUsd(charge.costMicros) },
  };
}
