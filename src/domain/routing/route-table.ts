import type { MediaKind, UpstreamProvider } from '../../adapters/upstream/index.js';
import { ApiError } from '../../errors/api-error.js';
import type { ErrorCode } from '../../errors/catalog.js';
import { type ExternalVerdict, type ModelCatalog, UNROUTED_EXTERNAL } from '../catalog/model-catalog.js';
import { assertAvailable } from '../catalog/model-resolution.js';
import type { RouteConfig, RouteCost, UpstreamsFile } from './upstreams-file.js';

/** What the caller is about to ask the upstream for. */
export type Need = 'chat' | 'stream' | 'embed' | 'rerank' | 'image' | MediaKind;

/** One step of a fallback chain (SPEC 4.2). */
export interface Route {
  provider: UpstreamProvider;
  providerName: string;
  /** The model id at this upstream (the route's `model`), not our slug. */
  upstreamModel: string;
  /**
   * What the upstream charges us (USD per million tokens; per request for rerankers that bill by search). Set by
   * RouteTable; `usdPerRequest` is optional only so hand-built routes in tests need not name it.
   */
  wholesale: { inputUsdPerMtok: number; outputUsdPerMtok: number; usdPerRequest?: number };
  cachedInputDiscount: boolean;
}

/**
 * A built provider, or the name of the env var its key should have come from. A provider whose key is unset is
 * kept, not dropped, so that a slug routed only to it answers gateway_misconfigured (SPEC 7.2), not "no route".
 */
export type ProviderSlot = { provider: UpstreamProvider } | { missingCredential: string };

/** The media kinds `default_route` serves: the ones the upstream port can serve (SPEC 4.1, 4.2). */
const DEFAULT_ROUTE_KINDS: ReadonlySet<string> = new Set([
  'text',
  'embedding',
  'rerank',
  'image',
  'audio',
  'music',
  'video',
]);
/** The need that makes a model of this kind callable at all (for the catalog's `available`). */
const PRIMARY_NEED: Readonly<Record<string, Need>> = {
  text: 'chat',
  embedding: 'embed',
  rerank: 'rerank',
  image: 'image',
  audio: 'audio',
  music: 'music',
  video: 'video',
};
/** The kinds whose providers say which containers they deliver (`mediaFormats`). */
const FORMATS_NEED: Readonly<Record<string, MediaKind>> = { audio: 'audio', music: 'music', video: 'video' };

interface DeclaredRoute {
  slot: ProviderSlot;
  providerName: string;
  upstreamModel: string;
  cost: RouteCost | undefined;
  cachedInputDiscount: boolean;
  /** The provider is the built-in sandbox (made-up answers). */
  sandbox: boolean;
}

type Outcome = { routes: readonly Route[] } | { code: ErrorCode; message: string };

/**
 * The cost-sorted fallback chains (SPEC 4.2), per (slug, need). The table is fixed at start, so each chain, and
 * each verdict on a slug that cannot be served, is computed once and cached: the request path only reads a Map.
 */
export class RouteTable {
  /** Canonical slug → its routes, cheapest first. A slug absent here has no route at all. */
  private readonly declared = new Map<string, DeclaredRoute[]>();
  private readonly disabled: ReadonlySet<string>;
  private readonly cache = new Map<string, Outcome>();

  constructor(
    file: UpstreamsFile,
    providers: ReadonlyMap<string, ProviderSlot>,
    private readonly catalog: ModelCatalog,
  ) {
    checkNames(file, providers, catalog);
    this.disabled = new Set(file.disabled_models);
    for (const model of catalog.view(null).models) {
      const configured = file.routes[model.slug];
      const routes = configured ?? (DEFAULT_ROUTE_KINDS.has(model.media_kind) ? defaultRoutes(file, model.slug) : []);
      const declared = routes.map((route) => declare(route, providers, file));
      if (declared.length > 0) this.declared.set(model.slug, sortByCost(declared));
    }
  }

  /**
   * The routes that can serve `need` for `slug` (or one of its aliases), cheapest first. Throws the SPEC 7.2 verdict
   * when there is none: model_disabled, no_provider_available, gateway_misconfigured or no_streaming_upstream. A
   * row the catalog file marks unavailable (retired upstream, ...) has none, whatever routes the file declares.
   */
  chain(slug: string, need: Need): Route[] {
    const model = this.catalog.find(slug);
    if (model === undefined)
      throw new ApiError('model_not_found', `Model "${slug}" is not in the catalog`, { meta: { slug } });
    assertAvailable(model);
    const outcome = this.outcome(model.slug, need);
    if ('code' in outcome) throw new ApiError(outcome.code, outcome.message, { meta: { slug: model.slug } });
    // A copy: the cached chain must survive whatever the caller does with the array.
    return outcome.routes.slice();
  }

  /**
   * Why the model cannot be called at all, as the call itself would be told (disabled, unrouted, missing
   * credentials); null when a route with a configured provider serves its kind's primary need (unknown slugs and
   * kinds without one are not judged: null).
   */
  unavailableReason(slug: string): string | null {
    const model = this.catalog.find(slug);
    if (model === undefined) return null;
    const need = PRIMARY_NEED[model.media_kind];
    if (need === undefined) return null;
    const outcome = this.outcome(model.slug, need);
    return 'code' in outcome ? outcome.message : null;
  }

  /**
   * The containers the routes of a media model deliver (a restoration row's: its restorations'), for the catalog to
   * advertise only those (SPEC 4.4); null where routes name none (text, images) or none serves the model.
   */
  deliverableFormats(slug: string): string[] | null {
    const model = this.catalog.find(slug);
    if (model === undefined) return null;
    const need: MediaKind | undefined = model.credit_metered ? 'restoration' : FORMATS_NEED[model.media_kind];
    if (need === undefined) return null;
    const outcome = this.outcome(model.slug, need);
    return 'code' in outcome
      ? null
      : [...new Set(outcome.routes.flatMap((route) => route.provider.mediaFormats?.[need] ?? []))];
  }

  /**
   * What calling an external-tier id answers (issue 24 item 3): the tier is listed for discovery and has no
   * catalog row, hence no price to bill it at, so no route serves it; `disabled_models` may name it.
   */
  externalVerdict(id: string): ExternalVerdict {
    if (this.disabled.has(id)) return { code: 'model_disabled', reason: 'Disabled platform-wide.' };
    return UNROUTED_EXTERNAL;
  }

  /** A route of the model goes to the sandbox, so callers may get its made-up answers. */
  servedBySandbox(slug: string): boolean {
    const model = this.catalog.find(slug);
    return model !== undefined && (this.declared.get(model.slug) ?? []).some((route) => route.sandbox);
  }

  private outcome(slug: string, need: Need): Outcome {
    const key = `${slug}\u0000${need}`;
    let outcome = this.cache.get(key);
    if (outcome === undefined) {
      outcome = this.compute(slug, need);
      this.cache.set(key, outcome);
    }
    return outcome;
  }

  private compute(slug: string, need: Need): Outcome {
    if (this.disabled.has(slug))
      return { code: 'model_disabled', message: `Model "${slug}" is disabled platform-wide` };
    const declared = this.declared.get(slug) ?? [];
    // SPEC 7.2: decided before dispatch, so the verdict is deterministic.
    if (declared.length === 0) return { code: 'no_provider_available', message: `No route serves model "${slug}"` };
    const usable = declared.filter(
      (route): route is DeclaredRoute & { slot: { provider: UpstreamProvider } } => 'provider' in route.slot,
    );
    const capable = usable.filter((route) => serves(route.slot.provider, need));
    if (capable.length > 0) return { routes: Object.freeze(capable.map((r) => toRoute(r, r.slot.provider))) };
    // A provider without its key might have served this need: the deployment is at fault, not the request.
    if (usable.length < declared.length) {
      return {
        code: 'gateway_misconfigured',
        message: `The deployment lacks the upstream credentials to serve model "${slug}"`,
      };
    }
    if (need === 'stream' && usable.some((route) => serves(route.slot.provider, 'chat'))) {
      return {
        code: 'no_streaming_upstream',
        message: `Only non-streaming upstreams serve model "${slug}"; retry without stream`,
      };
    }
    return { code: 'no_provider_available', message: `No route serves model "${slug}" for ${need}` };
  }
}

function serves(provider: UpstreamProvider, need: Need): boolean {
  switch (need) {
    case 'chat':
      return provider.chat !== undefined;
    case 'stream':
      return provider.streams && provider.chatStream !== undefined;
    case 'embed':
      return provider.embed !== undefined;
    case 'rerank':
      return provider.rerank !== undefined;
    case 'image':
      return provider.image !== undefined;
    default:
      return provider.startMedia !== undefined && provider.mediaFormats?.[need] !== undefined;
  }
}

/** `default_route` serves a slug under its own name at the upstream (the sandbox knows every slug). */
function defaultRoutes(file: UpstreamsFile, slug: string): RouteConfig[] {
  const fallback = file.default_route;
  return fallback === undefined ? [] : [{ provider: fallback.provider, model: slug, cost: fallback.cost }];
}

function declare(route: RouteConfig, providers: ReadonlyMap<string, ProviderSlot>, file: UpstreamsFile): DeclaredRoute {
  const slot = providers.get(route.provider);
  if (slot === undefined) throw new Error(`upstreams: provider "${route.provider}" was not built`);
  return {
    slot,
    providerName: route.provider,
    upstreamModel: route.model,
    cost: route.cost,
    cachedInputDiscount: route.cached_input_discount ?? false,
    sandbox: file.providers[route.provider]?.type === 'sandbox',
  };
}

/**
 * SPEC 4.2 "cost-sorted": input + output USD per Mtok, then USD per request (rerankers that bill by search), then
 * the order written in the file; Array.prototype.sort is stable, which keeps that last tie-break.
 */
function sortByCost(routes: DeclaredRoute[]): DeclaredRoute[] {
  const perMtok = (r: DeclaredRoute) => (r.cost?.input_usd_per_mtok ?? 0) + (r.cost?.output_usd_per_mtok ?? 0);
  const perRequest = (r: DeclaredRoute) => r.cost?.usd_per_request ?? 0;
  return [...routes].sort((a, b) => perMtok(a) - perMtok(b) || perRequest(a) - perRequest(b));
}

function toRoute(route: DeclaredRoute, provider: UpstreamProvider): Route {
  return Object.freeze({
    provider,
    providerName: route.providerName,
    upstreamModel: route.upstreamModel,
    wholesale: Object.freeze({
      inputUsdPerMtok: route.cost?.input_usd_per_mtok ?? 0,
      outputUsdPerMtok: route.cost?.output_usd_per_mtok ?? 0,
      usdPerRequest: route.cost?.usd_per_request ?? 0,
    }),
    cachedInputDiscount: route.cachedInputDiscount,
  });
}

/**
 * Slugs in the file must be catalog slugs (an alias or a typo would silently route nothing; `disabled_models` may
 * also name external-tier ids), and every provider must have been built. Checked at start, so a bad file stops
 * the service.
 */
function checkNames(file: UpstreamsFile, providers: ReadonlyMap<string, ProviderSlot>, catalog: ModelCatalog): void {
  const problems: string[] = [];
  const notSlug = (name: string) => catalog.find(name)?.slug !== name;
  const notSlugNorExternal = (name: string) => notSlug(name) && catalog.externalVerdict(name) === undefined;
  for (const slug of Object.keys(file.routes).filter(notSlug)) problems.push(`routes.${slug}: ${hint(slug, catalog)}`);
  for (const slug of file.disabled_models.filter(notSlugNorExternal))
    problems.push(`disabled_models: "${slug}": ${hint(slug, catalog)}`);
  for (const name of Object.keys(file.providers).filter((n) => !providers.has(n)))
    problems.push(`providers.${name}: not built`);
  if (problems.length > 0) throw new Error(`Invalid upstreams file: ${problems.join('; ')}`);
}

function hint(name: string, catalog: ModelCatalog): string {
  const model = catalog.find(name);
  return model === undefined ? 'not a catalog slug' : `an alias; write the slug "${model.slug}"`;
}
