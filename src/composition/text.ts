import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { MediaLoader } from '../adapters/media-fetch/index.js';
import { WorkerPoolTokenWork } from '../adapters/tokenizer/worker-pool.js';
import { ClipEncoder } from '../adapters/video-codec/video-files.js';
import type { Config } from '../config.js';
import type { Billing } from '../domain/billing/billing.js';
import { ModelCatalog } from '../domain/catalog/model-catalog.js';
import { ChatService } from '../domain/chat/chat-service.js';
import { createChainAlert } from '../domain/routing/alerts.js';
import { RouteTable } from '../domain/routing/route-table.js';
import { sandboxUses, type UpstreamsFile } from '../domain/routing/upstreams-file.js';
import { TokenCounter } from '../domain/text/token-counter.js';
import { counter } from '../lib/metrics.js';
import { blameSetting, StartupError } from '../runtime/startup.js';
import { loadCatalogFile, loadUpstreamsFile } from './config-files.js';
import { buildProviders } from './providers.js';

/** The model catalog of CATALOG_FILE, checked against the contract; a bad file stops the start naming the setting. */
export async function loadCatalog(config: Config, contract: OpenAPIV3.DocumentV3_1): Promise<ModelCatalog> {
  return new ModelCatalog(
    await blameSetting('CATALOG_FILE', config.CATALOG_FILE, () =>
      loadCatalogFile(config.CATALOG_FILE, contract.components?.schemas ?? {}),
    ),
  );
}

/** UPSTREAMS_FILE, refused in production while it routes to the sandbox (unless SANDBOX_IN_PRODUCTION=allow). */
export async function loadUpstreams(config: Config): Promise<UpstreamsFile> {
  const upstreams = await blameSetting('UPSTREAMS_FILE', config.UPSTREAMS_FILE, () =>
    loadUpstreamsFile(config.UPSTREAMS_FILE),
  );
  const sandboxed = sandboxUses(upstreams);
  if (config.NODE_ENV === 'production' && config.SANDBOX_IN_PRODUCTION !== 'allow' && sandboxed.length > 0) {
    throw new StartupError(
      'UPSTREAMS_FILE',
      `${config.UPSTREAMS_FILE}: ${sandboxed.join(', ')}: the sandbox would answer real callers at real prices in production; route to real upstreams, or set SANDBOX_IN_PRODUCTION=allow`,
    );
  }
  return upstreams;
}

function buildTokenCounter(config: Config, metrics: Registry) {
  const tokenWork = new WorkerPoolTokenWork({
    threads: config.TOKENIZER_THREADS,
    taskTimeoutMs: config.TOKENIZER_TASK_TIMEOUT_MS,
  });
  const tokenizedChars = counter(
    metrics,
    'gateway_tokenized_chars_total',
    'Characters tokenized on the request path, by thread (event_loop or worker)',
    ['thread'],
  );
  const tokens = new TokenCounter(tokenWork, {
    queue: {
      concurrency: config.TOKENIZER_THREADS,
      maxWaiting: config.TOKENIZER_MAX_WAITING,
      maxWaitingPerOwner: config.TOKENIZER_MAX_WAITING_PER_ACCOUNT,
    },
    onCounted: (thread, chars) => tokenizedChars.inc({ thread }, chars),
  });
  return { tokenWork, tokens };
}

export interface TextParts {
  config: Config;
  logger: Logger;
  metrics: Registry;
  now: () => number;
  catalog: ModelCatalog;
  upstreams: UpstreamsFile;
  billing: Billing;
  media: MediaLoader;
}

/**
 * Token counting, the upstream providers of UPSTREAMS_FILE (the one place concrete upstream adapters are chosen),
 * the route table and the chat service, with each request's chain hooks (deadline, operator alert: SPEC 7.3).
 */
export function buildText({ config, logger, metrics, now, catalog, upstreams, billing, media }: TextParts) {
  const embeddingDimensions = (model: string) => catalog.find(model)?.capabilities.embedding_dimensions ?? 1536;
  const { tokenWork, tokens } = buildTokenCounter(config, metrics);
  const clips = new ClipEncoder();
  const providers = buildProviders(upstreams, process.env, { embeddingDimensions, tokens, clips });
  for (const [name, slot] of providers) {
    if ('missingCredential' in slot)
      logger.warn(
        { provider: name, env: slot.missingCredential },
        'provider skipped: its API key is not set (gateway_misconfigured for models only it serves)',
      );
  }
  const routes = new RouteTable(upstreams, providers, catalog);
  catalog.reflectRoutes(routes);
  const alert = createChainAlert(logger, metrics);
  const chat = new ChatService(
    catalog,
    routes,
    billing,
    tokens,
    { maxMessageChars: config.MAX_MESSAGE_CHARS, defaultMaxOutputTokens: config.DEFAULT_MAX_OUTPUT_TOKENS },
    media,
  );
  const chainHooks = (requestId: string, slug: string, deadlineMs = config.REQUEST_DEADLINE_MS) => ({
    slug,
    requestId,
    deadlineAtMs: now() + deadlineMs,
    budgetMs: deadlineMs,
    onExhausted: alert,
  });
  return { tokenWork, tokens, clips, routes, chat, chainHooks };
}
