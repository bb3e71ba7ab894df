/**
 * Temporary upstreams files (config/upstreams.yaml format, src/domain/routing/upstreams-file.ts) for tests that
 * route chosen catalog slugs to chosen local fakes (test/fixtures/fake-upstream.ts) in a chosen order, at chosen
 * wholesale costs. The file is parsed by the real loader when the harness starts (UPSTREAMS_FILE).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';

export type UpstreamType = 'openai' | 'cohere-rerank' | 'tei-rerank' | 'openai-images' | 'fal-queue';

/** One route of a slug's chain, and the provider (vendor endpoint) it goes to. */
export interface UpstreamRouteSpec {
  /** Provider name in the file; a name used in several routes must describe the same provider each time. */
  provider: string;
  /** The fake's origin (`fake.baseUrl`, or `closedPortUrl()`). For `openai` and `openai-images`, `/v1` is appended. */
  url: string;
  /** Default `openai`. */
  type?: UpstreamType;
  /** The model id at the upstream; default `<provider>/<slug>`. */
  model?: string;
  /** Wholesale cost: decides the chain order (cheapest first, then the order written). */
  cost?: { input?: number; output?: number; perRequest?: number };
  cachedInputDiscount?: boolean;
  /** Provider options, written as budget_ms, idle_timeout_ms, api_key_env, streams, formats. */
  budgetMs?: number;
  idleTimeoutMs?: number;
  apiKeyEnv?: string;
  streams?: boolean;
  /** fal-queue: the containers it delivers per media kind. */
  formats?: Record<string, string[]>;
}

export interface UpstreamsFileOptions {
  /** Keep the sandbox as `default_route` for every slug not routed here. Default false. */
  sandboxDefault?: boolean;
  disabledModels?: string[];
}

const written: string[] = [];

/** Writes the file into a new temporary directory and returns its path. */
export function writeUpstreamsFile(
  routes: Record<string, UpstreamRouteSpec[]>,
  options: UpstreamsFileOptions = {},
): string {
  const providers: Record<string, Record<string, unknown>> = {};
  if (options.sandboxDefault === true) providers.sandbox = { type: 'sandbox' };
  const fileRoutes: Record<string, Record<string, unknown>[]> = {};
  for (const [slug, chain] of Object.entries(routes)) {
    fileRoutes[slug] = chain.map((route) => {
      addProvider(providers, route);
      return {
        provider: route.provider,
        model: route.model ?? `${route.provider}/${slug}`,
        ...(route.cost === undefined ? {} : { cost: cost(route.cost) }),
        ...(route.cachedInputDiscount === undefined ? {} : { cached_input_discount: route.cachedInputDiscount }),
      };
    });
  }
  const file: Record<string, unknown> = { providers, routes: fileRoutes };
  if (options.sandboxDefault === true) file.default_route = { provider: 'sandbox' };
  if (options.disabledModels !== undefined) file.disabled_models = options.disabledModels;
  const dir = mkdtempSync(join(tmpdir(), 'cgw-upstreams-'));
  written.push(dir);
  const path = join(dir, 'upstreams.yaml');
  writeFileSync(path, stringify(file));
  return path;
}

/** Removes every file written by this process (call from afterAll). */
export function removeUpstreamsFiles(): void {
  for (const dir of written.splice(0)) rmSync(dir, { recursive: true, force: true });
}

function addProvider(providers: Record<string, Record<string, unknown>>, route: UpstreamRouteSpec): void {
  const type = route.type ?? 'openai';
  const config: Record<string, unknown> = {
    type,
    base_url: type === 'openai' || type === 'openai-images' ? `${route.url.replace(/\/+$/, '')}/v1` : route.url,
    ...(route.apiKeyEnv === undefined ? {} : { api_key_env: route.apiKeyEnv }),
    ...(route.streams === undefined ? {} : { streams: route.streams }),
    ...(route.budgetMs === undefined ? {} : { budget_ms: route.budgetMs }),
    ...(route.idleTimeoutMs === undefined ? {} : { idle_timeout_ms: route.idleTimeoutMs }),
    ...(route.formats === undefined ? {} : { formats: route.formats }),
  };
  const existing = providers[route.provider];
  if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(config)) {
    throw new Error(`writeUpstreamsFile: provider "${route.provider}" described two different ways`);
  }
  providers[route.provider] = config;
}

function cost(c: NonNullable<UpstreamRouteSpec['cost']>): Record<string, number> {
  return {
    ...(c.input === undefined ? {} : { input_usd_per_mtok: c.input }),
    ...(c.output === undefined ? {} : { output_usd_per_mtok: c.output }),
    ...(c.perRequest === undefined ? {} : { usd_per_request: c.perRequest }),
  };
}
