/**
 * The operator's data files, read from disk here so the domain only checks their contents (DESIGN.md 2: the
 * domain reads no files): the model catalog (CATALOG_FILE), the upstreams file (UPSTREAMS_FILE) and the bundled
 * contract.
 */
import { readFileSync } from 'node:fs';
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';
import { parse as parseYaml } from 'yaml';
import { type CatalogFile, checkCatalogFile } from '../domain/catalog/catalog-file.js';
import { parseUpstreamsFile, type UpstreamsFile } from '../domain/routing/upstreams-file.js';
import { PROJECT_ROOT } from '../lib/project-root.js';

export function loadCatalogFile(path: string, contractSchemas: Record<string, unknown>): CatalogFile {
  return checkCatalogFile(JSON.parse(readFileSync(path, 'utf8')), path, contractSchemas);
}

export function loadUpstreamsFile(path: string): UpstreamsFile {
  return parseUpstreamsFile(readFileSync(path, 'utf8'), path);
}

export const CONTRACT_FILE = `${PROJECT_ROOT}generated/openapi.bundled.yaml`;

/**
 * Reads the bundled contract (the source of truth the validator and the catalog checks use). Strings the YAML parser
 * cuts out of the text are slices of it, which keep its 1.1 MB alive for good; a JSON round trip (6 ms, once) copies
 * them, and the process holds 1.9 MB less (bench/README.md, "Memory").
 */
export function loadContract(): OpenAPIV3.DocumentV3_1 {
  return JSON.parse(JSON.stringify(parseYaml(readFileSync(CONTRACT_FILE, 'utf8')))) as OpenAPIV3.DocumentV3_1;
}
