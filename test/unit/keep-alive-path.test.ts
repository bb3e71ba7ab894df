import { describe, expect, it } from 'vitest';
import { servedByKeepAlive } from '../../src/domain/chat/keep-alive-path.js';
import { KEEP_ALIVE_ABOVE_TOKENS } from '../../src/domain/limits.js';

describe('the keep-alive path (SPEC 4.2, SPEC 8)', () => {
  it('serves non-stream requests above 4096 output tokens on it, and no others', () => {
    expect(KEEP_ALIVE_ABOVE_TOKENS).toBe(4096);
    expect(servedByKeepAlive({ maxTokens: 4096 })).toBe(false);
    expect(servedByKeepAlive({ maxTokens: 4097 })).toBe(true);
    expect(servedByKeepAlive({ maxTokens: undefined })).toBe(false);
  });
});
