import { describe, expect, it } from 'vitest';
import { copyWith } from '../../src/lib/copy-with.js';
import { haveSameMap } from '../setup/v8-shapes.js';

const line = (n: number) => ({
  id: `log_${n}`,
  model: 'gpt-5-mini',
  promptTokens: n,
  completionTokens: 2 * n,
  metadata: {},
});

describe('copyWith', () => {
  it('copies the base and sets the fields, new keys and existing ones, leaving the base as it was', () => {
    const base = line(1);
    const copy = copyWith(base, { accountId: 'acc_1', promptTokens: 9 });
    expect(copy).toEqual({
      id: 'log_1',
      model: 'gpt-5-mini',
      promptTokens: 9,
      completionTokens: 2,
      metadata: {},
      accountId: 'acc_1',
    });
    expect(Object.keys(copy)).toEqual(['id', 'model', 'promptTokens', 'completionTokens', 'metadata', 'accountId']);
    expect(base).toEqual(line(1));
    expect(copy.metadata).toBe(base.metadata);
  });

  it('gives copies of same-shaped objects one hidden class, call after call', () => {
    const copies = Array.from({ length: 50 }, (_, n) =>
      copyWith(line(n), { accountId: `acc_${n}`, transferId: `charge:${n}`, costMicros: BigInt(n) }),
    );
    for (const copy of copies.slice(1)) expect(haveSameMap(copy, copies[0]!)).toBe(true);
  });
});
