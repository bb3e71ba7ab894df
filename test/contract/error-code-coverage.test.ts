/**
 * DESIGN.md 5: every error code of the contract is exercised by some HTTP-level test — asserted on as a code
 * string in a contract, integration or SDK test — unless it belongs to a surface not built yet, listed here
 * with the reason.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOG, type ErrorCode } from '../../src/errors/catalog.js';

const NOT_SERVED_YET: Partial<Record<ErrorCode, string>> = {};

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? testFiles(path) : path.endsWith('.test.ts') ? [path] : [];
  });
}

// Only tests that go through HTTP count: a code is exercised when a client has been seen to receive it.
const corpus = ['contract', 'integration', 'sdk']
  .flatMap((folder) => testFiles(new URL(`../${folder}`, import.meta.url).pathname))
  .filter((path) => !path.endsWith('error-code-coverage.test.ts'))
  .map((path) => readFileSync(path, 'utf8'))
  .join('\n');

describe('every error code is exercised', () => {
  it.each(Object.keys(ERROR_CATALOG) as ErrorCode[])('%s', (code) => {
    if (NOT_SERVED_YET[code] !== undefined) return;
    expect(corpus.includes(`'${code}'`), `no test asserts '${code}'`).toBe(true);
  });

  it('lists only codes that exist and are really unserved', () => {
    for (const code of Object.keys(NOT_SERVED_YET)) {
      expect(Object.keys(ERROR_CATALOG)).toContain(code);
      expect(corpus.includes(`'${code}'`), `'${code}' is tested now: remove it from NOT_SERVED_YET`).toBe(false);
    }
  });
});
