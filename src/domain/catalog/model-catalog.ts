import type { components } from '../../../generated/openapi.js';
import type { AccountRecord } from '../../adapters/api-keys/index.js';
import { shownPrice } from '../pricing/rates.js';
import type { CatalogEntry, CatalogFile, CatalogFileEntry } from './catalog-file.js';

/** A row as the catalog views show it. */
type ListedEntry = CatalogFileEntry & { sandbox: boolean };

/** Why an external-tier id cannot be called, and the code its call answers (SPEC 2.5, 7.2). */
export interface ExternalVerdict {
  code: 'model_disabled' | 'no_provider_available';
  reason: string;
}

/** What the routes say about a model (RouteTable). */
export interface RouteVerdicts {
  unavailableReason(slug: string): string | null;
  servedBySandbox(slug: string): boolean;
  deliverableFormats(slug: string): readonly string[] | null;
  externalVerdict(id: string): ExternalVerdict;
}

export const UNROUTED_EXTERNAL: ExternalVerdict = {
  code: 'no_provider_available',
  reason: 'External-tier model; no route serves it on this deployment.',
};

type CatalogBody = components['schemas']['Catalog'];
type CompatModelList = components['schemas']['CompatModelList'];
type CompatModel = components['schemas']['CompatModel'];

/** SPEC 2.5: `created` 1735689600 means the release time is unknown. */
export const UNKNOWN_RELEASE_TIME = 1735689600;

/** The discounts a caller has on top of the public price (SPEC 2.5 user_discount_percent, user_tier_discounts). */
export type CallerDiscounts = Pick<AccountRecord, 'discountPercent' | 'tierDiscounts'>;

const PRICE_FIELDS = [
  'retail_input_usd_per_mtok',
  'retail_output_usd_per_mtok',
  'retail_cached_input_usd_per_mtok',
  'retail_usd_per_image',
  'retail_usd_per_unit',
  'usd_per_credit',
] as const;

/** The model catalog (SPEC 2.5): lookups by slug or alias, and the public or caller-specific views. */
export class ModelCatalog {
  private readonly bySlugOrAlias = new Map<string, CatalogFileEntry>();
  /** The rows as the views show them: the file's, with what the routes say (reflectRoutes). */
  private listed: readonly ListedEntry[];
  private publicBody!: CatalogBody;
  private compatList!: CompatModelList;
  private compatById!: Map<string, CompatModel>;
  /** External-tier id → what calling it answers (reflectRoutes). */
  private externalVerdicts: ReadonlyMap<string, ExternalVerdict>;

  constructor(private readonly file: CatalogFile) {
    for (const entry of file.models) {
      this.bySlugOrAlias.set(entry.slug, entry);
      for (const alias of entry.aliases) this.bySlugOrAlias.set(alias, entry);
    }
    this.listed = file.models.map((entry) => ({ ...entry, sandbox: false }));
    this.externalVerdicts = new Map(file.external_models.map((m) => [m.id, UNROUTED_EXTERNAL]));
    this.buildViews();
  }

  /**
   * Called once at start, with the routes: a row the file marks available that no route can serve shows
   * `available: false` and the reason in the catalog and leaves the compat list; a row the sandbox may answer
   * says `sandbox: true`; a media row lists only the output formats its routes deliver (issue 24: webm was listed
   * that no route renders). Lookups (`find`) keep the file's rows, so a call to such a model still fails with the
   * route's own code.
   */
  reflectRoutes(routes: RouteVerdicts): void {
    this.listed = this.file.models.map((file) => {
      const entry = deliverable(file, routes.deliverableFormats(file.slug));
      const reason = entry.available ? routes.unavailableReason(entry.slug) : null;
      const sandbox = routes.servedBySandbox(entry.slug);
      return reason === null
        ? { ...entry, sandbox }
        : { ...entry, sandbox, available: false, unavailable_reason: reason };
    });
    this.externalVerdicts = new Map(this.file.external_models.map((m) => [m.id, routes.externalVerdict(m.id)]));
    this.buildViews();
  }

  private buildViews(): void {
    this.publicBody = this.buildBody({ discountPercent: 0, tierDiscounts: {} });
    this.compatList = this.buildCompatList();
    this.compatById = new Map(this.compatList.data.map((model) => [model.id, model]));
  }

  get defaultModel(): string {
    return this.file.default_model;
  }

  get size(): number {
    return this.file.models.length;
  }

  /** Resolves a slug or one of its aliases to the native row (SPEC 2.5 aliases). */
  find(slugOrAlias: string): CatalogFileEntry | undefined {
    return this.bySlugOrAlias.get(slugOrAlias);
  }

  /**
   * The catalog as `discounts` sees it: public prices when there are none. `measured` gives throughput
   * measured from traffic; such rows show it with `tokens_per_sec_approx: false` (SPEC 2.5).
   */
  view(discounts: CallerDiscounts | null, measured?: (slug: string) => number | null): CatalogBody {
    const personal =
      discounts !== null && (discounts.discountPercent !== 0 || Object.keys(discounts.tierDiscounts).length > 0);
    const body = personal ? this.buildBody(discounts) : this.publicBody;
    if (measured === undefined) return body;
    let changed = false;
    const models = body.models.map((row) => {
      const tokensPerSec = measured(row.slug);
      if (tokensPerSec === null) return row;
      changed = true;
      return { ...row, tokens_per_sec: Math.round(tokensPerSec * 10) / 10, tokens_per_sec_approx: false };
    });
    return changed ? { ...body, models } : body;
  }

  /** What calling `id` answers when it is an external-tier id (listed, not a catalog row); undefined otherwise. */
  externalVerdict(id: string): ExternalVerdict | undefined {
    return this.externalVerdicts.get(id);
  }

  /** GET /v1/compat/models: every callable native model plus the external tier (SPEC 2.5, 4.2). */
  compatModels(): CompatModelList {
    return this.compatList;
  }

  /** One entry of that list by id, or undefined. */
  compatModel(id: string): CompatModel | undefined {
    return this.compatById.get(id);
  }

  private buildBody(discounts: CallerDiscounts): CatalogBody {
    return {
      default_model: this.file.default_model,
      models: this.listed.map((entry) => priceFor(entry, discounts)),
      external_models: this.file.external_models.map((m) => m.id),
    };
  }

  private buildCompatList(): CompatModelList {
    const native = this.listed
      .filter((m) => m.available)
      .map((m) => ({ id: m.slug, object: 'model' as const, created: m.created, owned_by: m.owned_by }));
    const external = this.file.external_models.map((m) => ({
      id: m.id,
      object: 'model' as const,
      created: m.created,
      owned_by: m.owned_by,
    }));
    return { object: 'list', data: [...native, ...external] };
  }
}

/** The row with its `output_formats` cut to those the routes deliver (`formats`; null: the routes do not say). */
function deliverable(entry: CatalogFileEntry, formats: readonly string[] | null): CatalogFileEntry {
  const listed = entry.capabilities.output_formats;
  if (formats === null || listed === undefined || listed.every((format) => formats.includes(format))) return entry;
  return {
    ...entry,
    capabilities: { ...entry.capabilities, output_formats: listed.filter((format) => formats.includes(format)) },
  };
}

/** One row at the caller's price: every price after the personal discount, each tier after its own if set. */
function priceFor(entry: ListedEntry, discounts: CallerDiscounts): CatalogEntry {
  const { created: _created, owned_by: _owner, image_tokens: _imageTokens, ...row } = entry;
  const percent = discounts.discountPercent;
  const tierDiscounts: Record<string, number> = {};
  let pricing = row.pricing;
  if (pricing !== null) {
    pricing = Object.fromEntries(
      Object.entries(pricing).map(([tier, usd]) => {
        const tierPercent = discounts.tierDiscounts[tier];
        if (tierPercent !== undefined && tierPercent !== percent) tierDiscounts[tier] = tierPercent;
        return [tier, shownPrice(usd, tierPercent ?? percent)];
      }),
    );
  }
  const priced: CatalogEntry = { ...row, pricing, user_discount_percent: percent, user_tier_discounts: tierDiscounts };
  if (percent > 0) {
    for (const field of PRICE_FIELDS) {
      const usd = row[field];
      if (usd !== null) priced[field] = shownPrice(usd, percent);
    }
  }
  return priced;
}
