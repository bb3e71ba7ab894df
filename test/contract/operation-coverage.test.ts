import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { envelopeForPath } from '../../src/errors/render.js';
import { contractOperations } from '../setup/contract.js';

const kebab = (operationId: string) => operationId.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

describe('the contract and its tests', () => {
  it.each(contractOperations())('$operationId has a contract test file', ({ operationId }) => {
    expect(existsSync(new URL(`./${kebab(operationId)}.test.ts`, import.meta.url))).toBe(true);
  });

  it.each(contractOperations())('$operationId: x-envelope agrees with the envelope its path is answered in', ({ path, envelope }) => {
    expect(envelope).toBe(envelopeForPath(path));
  });
});
