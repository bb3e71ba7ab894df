import { CohereRerankProvider } from '../adapters/upstream/cohere-rerank.js';
import { FalQueueProvider } from '../adapters/upstream/fal-queue.js';
import type { UpstreamProvider } from '../adapters/upstream/index.js';
import { OpenAiCompatibleProvider } from '../adapters/upstream/openai-compatible.js';
import { OpenAiImagesProvider } from '../adapters/upstream/openai-images.js';
import { SandboxProvider } from '../adapters/upstream/sandbox.js';
import { TeiRerankProvider } from '../adapters/upstream/tei-rerank.js';
import type { ClipEncoder } from '../adapters/video-codec/video-files.js';
import type { ProviderSlot } from '../domain/routing/route-table.js';
import type { ProviderConfig, UpstreamsFile } from '../domain/routing/upstreams-file.js';
import type { TokenCounter } from '../domain/text/token-counter.js';

export interface ProviderDeps {
  /** The sandbox's vector length per model (from the catalog's embedding_dimensions). */
  embeddingDimensions: (upstreamModel: string) => number;
  tokens: TokenCounter;
  /** Encodes the sandbox's video clips off the event loop; without it the sandbox renders no video. */
  clips?: ClipEncoder;
}

/**
 * Builds every provider of the file. One whose `api_key_env` is named but unset (or empty) becomes
 * `{ missingCredential: <env var> }` instead of being dropped, so a request routed only to it answers
 * gateway_misconfigured (SPEC 7.2) and the operator can be told which variable to set.
 */
export function buildProviders(
  file: UpstreamsFile,
  env: NodeJS.ProcessEnv,
  deps: ProviderDeps,
): Map<string, ProviderSlot> {
  const slots = new Map<string, ProviderSlot>();
  for (const [name, config] of Object.entries(file.providers)) {
    const key = apiKey(config, env);
    slots.set(name, 'missingCredential' in key ? key : { provider: build(name, config, key.apiKey, deps) });
  }
  return slots;
}

function apiKey(
  config: ProviderConfig,
  env: NodeJS.ProcessEnv,
): { apiKey: string | undefined } | { missingCredential: string } {
  if (config.type === 'sandbox' || config.api_key_env === undefined) return { apiKey: undefined };
  const value = env[config.api_key_env];
  return value === undefined || value === '' ? { missingCredential: config.api_key_env } : { apiKey: value };
}

function build(name: string, config: ProviderConfig, apiKey: string | undefined, deps: ProviderDeps): UpstreamProvider {
  switch (config.type) {
    case 'sandbox':
      return new SandboxProvider({
        name,
        embeddingDimensions: deps.embeddingDimensions,
        tokens: deps.tokens,
        ...defined({ clips: deps.clips }),
      });
    case 'openai':
      return new OpenAiCompatibleProvider({
        name,
        baseUrl: config.base_url,
        ...defined({
          apiKey,
          streams: config.streams,
          budgetMs: config.budget_ms,
          idleTimeoutMs: config.idle_timeout_ms,
          outputCapField: config.output_cap_field,
        }),
      });
    case 'cohere-rerank':
      return new CohereRerankProvider({
        name,
        baseUrl: config.base_url,
        ...defined({ apiKey, budgetMs: config.budget_ms }),
      });
    case 'tei-rerank':
      return new TeiRerankProvider({
        name,
        baseUrl: config.base_url,
        ...defined({ apiKey, budgetMs: config.budget_ms }),
      });
    case 'openai-images':
      return new OpenAiImagesProvider({
        name,
        baseUrl: config.base_url,
        ...defined({ apiKey, budgetMs: config.budget_ms }),
      });
    case 'fal-queue':
      return new FalQueueProvider({
        name,
        baseUrl: config.base_url,
        formats: config.formats,
        ...defined({ apiKey, budgetMs: config.budget_ms }),
      });
  }
}

/** Leaves out unset options, so a provider's own default is not overridden by an explicit `undefined`. */
function defined<T extends Record<string, unknown>>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
