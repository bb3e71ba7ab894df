/**
 * The operator's data files, read from disk here so the domain only checks their contents (DESIGN.md 2: the
 * domain reads no files): the model catalog (CATALOG_FILE) and the upstreams file (UPSTREAMS_FILE).
 */
import { readFileSync } from 'node:fs';
import { type CatalogFile, checkCatalogFile } from '../domain/catalog/catalog-file.js';
import { parseUpstreamsFile, type UpstreamsFile } from '../domain/routing/upstreams-file.js';

export function loadCatalogFile(path: string, contractSchemas: Record<string, unknown>): CatalogFile {
  return checkCatalogFile(JSON.parse(readFileSync(path, 'utf8')), path, contractSchemas);
}

export function loadUpstreamsFile(path: string): UpstreamsFile {
  return parseUpstreamsFile(readFileSync(path, 'utf8'), path);
}
