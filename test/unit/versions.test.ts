/**
 * SPEC 9.5: "A client SDK and a terminal tool exist for the same API; their version numbers are separate from the
 * API path version." The contract's `info.version` is the API's (its major is the path's `/v1`); each package
 * under packages/ has its own semver and a CHANGELOG entry for it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = join(import.meta.dirname, '..', '..');
const read = (...path: string[]) => readFileSync(join(root, ...path), 'utf8');
const SEMVER = /^(\d+)\.(\d+)\.(\d+)(?:-[0-9A-Za-z.-]+)?$/;

describe('versions', () => {
  it("gives the contract the API's version, whose major every path carries", () => {
    const contract = parse(read('openapi', 'openapi.yaml')) as { info: { version: string }; paths: object };
    const major = SEMVER.exec(contract.info.version)?.[1];
    expect(major, contract.info.version).toBeDefined();
    const versioned = Object.keys(contract.paths).filter((path) => /^\/v\d+\//.test(path));
    expect(versioned.length).toBeGreaterThan(40);
    for (const path of versioned) expect(path.startsWith(`/v${major}/`), path).toBe(true);
  });

  it.each(['sdk', 'cli'])('gives packages/%s a semver of its own and a CHANGELOG entry for it', (name) => {
    const manifest = JSON.parse(read('packages', name, 'package.json')) as { version: string; files: string[] };
    expect(manifest.version).toMatch(SEMVER);
    expect(manifest.files).toContain('CHANGELOG.md');
    const headings = read('packages', name, 'CHANGELOG.md').match(/^## .+$/gm) ?? [];
    expect(headings[0]).toMatch(
      new RegExp(`^## ${manifest.version.replaceAll('.', '\\.')} \\(\\d{4}-\\d{2}-\\d{2}\\)$`),
    );
  });
});
