import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsImport from 'ajv-formats';
import type { components } from '../../../generated/openapi.js';
import { type ImageTokenRule, ImageTokenRuleSchema } from '../text/image-tokens.js';

export type CatalogEntry = components['schemas']['CatalogEntry'];

/** A row of the catalog data file: the contract's entry without the per-caller fields, plus the release time. */
export type CatalogFileEntry = Omit<CatalogEntry, 'user_discount_percent' | 'user_tier_discounts' | 'sandbox'> & {
  /** Vendor release time in Unix seconds; 1735689600 means unknown (SPEC 2.5). */
  created: number;
  owned_by: string;
  /** How the vendor counts an image part, with its source (image-tokens.ts); absent: a generous default. */
  image_tokens?: ImageTokenRule;
};

export interface ExternalModel {
  id: string;
  created: number;
  owned_by: string;
}

export interface CatalogFile {
  default_model: string;
  external_models: ExternalModel[];
  models: CatalogFileEntry[];
}

const addFormats = addFormatsImport as unknown as (ajv: Ajv2020) => void;

/**
 * Checks the parsed catalog data file (CATALOG_FILE, read by the composition root) against the contract's own
 * CatalogEntry schema, so a bad file stops the service at start instead of producing responses that break the
 * contract. `path` names the file in the errors.
 */
export function checkCatalogFile(parsed: unknown, path: string, contractSchemas: Record<string, unknown>): CatalogFile {
  const file = parsed as CatalogFile;
  if (!Array.isArray(file.models) || !Array.isArray(file.external_models) || typeof file.default_model !== 'string') {
    throw new Error(`${path}: expected {default_model, external_models[], models[]}`);
  }
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats(ajv);
  ajv.addSchema({ $id: 'contract', components: { schemas: contractSchemas } });
  const validate = ajv.compile({ $ref: 'contract#/components/schemas/CatalogEntry' });
  const problems: string[] = [];
  for (const [index, { created, owned_by, image_tokens, ...entry }] of file.models.entries()) {
    if (!Number.isInteger(created) || typeof owned_by !== 'string')
      problems.push(`models[${index}]: created and owned_by are required`);
    const rule = image_tokens === undefined ? null : ImageTokenRuleSchema.safeParse(image_tokens);
    if (rule?.success === false)
      problems.push(
        `models[${index}] (${entry.slug}): image_tokens: ${rule.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join(', ')}`,
      );
    if (!validate({ ...entry, user_discount_percent: 0, user_tier_discounts: {}, sandbox: false })) {
      problems.push(`models[${index}] (${entry.slug}): ${ajv.errorsText(validate.errors)}`);
    }
  }
  problems.push(...namingProblems(file));
  if (problems.length > 0) throw new Error(`${path}: ${problems.slice(0, 10).join('; ')}`);
  return file;
}

/** Slugs and aliases must name one row each; the default must be an available text model (SPEC 2.5). */
function namingProblems(file: CatalogFile): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const name of file.models.flatMap((m) => [m.slug, ...m.aliases])) {
    if (seen.has(name)) problems.push(`"${name}" names more than one model`);
    seen.add(name);
  }
  for (const external of file.external_models) {
    if (seen.has(external.id))
      problems.push(`external model "${external.id}" resolves to a native row and must not be listed`);
  }
  const fallback = file.models.find((m) => m.slug === file.default_model);
  if (fallback === undefined || fallback.media_kind !== 'text' || !fallback.available) {
    problems.push(`default_model "${file.default_model}" is not an available text model`);
  }
  return problems;
}
