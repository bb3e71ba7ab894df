import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { envelopeForPath } from '../../src/errors/render.js';
import { contractOperations } from '../setup/contract.js';

const kebab = (operationId: string) => operationId.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

describe('the contract and its tests', () => {
  it.each(contractOperations())('$operationId has a contract test file', ({ operationId }) => {
    expect(existsSync(new URL(`./${kebab(operationId)}.test.ts`, import.meta.url))).toBe(true);
  });

  it.each(contractOperations())(
    '$operationId: x-envelope agrees with the envelope its path is answered in',
    ({ path, envelope }) => {
      expect(envelope).toBe(envelopeForPath(path));
    },
  );
});

describe('x-error-codes', () => {
  it('names only codes of the ErrorCode enum, on fields of the request', async () => {
    const { ERROR_CATALOG } = await import('../../src/errors/catalog.js');
    const { loadContract } = await import('../../src/composition/index.js');
    const contract = loadContract() as unknown as {
      paths: Record<string, Record<string, { 'x-error-codes'?: Record<string, string> }>>;
    };
    let seen = 0;
    for (const item of Object.values(contract.paths)) {
      for (const operation of Object.values(item)) {
        for (const [pointer, code] of Object.entries(operation['x-error-codes'] ?? {})) {
          seen++;
          expect(Object.keys(ERROR_CATALOG)).toContain(code);
          expect(pointer).toMatch(/^\/(body|query|path)(\/[^/@]+)*(@[A-Za-z]+)?$/);
        }
      }
    }
    expect(seen).toBeGreaterThan(10);
  });
});
