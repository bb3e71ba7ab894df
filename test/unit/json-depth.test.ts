/** The nesting scan run on raw request bodies before they are parsed (src/http/json-depth.ts). */
import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from '../../src/http/json-depth.js';

const scan = (text: string, maxDepth: number) => nestsDeeperThan(Buffer.from(text, 'utf8'), maxDepth);
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('nestsDeeperThan', () => {
  it('counts arrays and objects open at once, not how many there are', () => {
    expect(scan(nested(3), 3)).toBe(false);
    expect(scan(nested(4), 3)).toBe(true);
    expect(scan('{"a":{"b":[1,{"c":2}]}}', 4)).toBe(false);
    expect(scan('{"a":{"b":[1,{"c":2}]}}', 3)).toBe(true);
    expect(scan(`[${Array.from({ length: 1000 }, () => '{"a":[1]}').join(',')}]`, 3)).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes and backslashes included', () => {
    expect(scan(JSON.stringify({ text: '[[[[{{{{' }), 1)).toBe(false);
    expect(scan(JSON.stringify({ text: 'say \\"[[[[" twice\\' }), 1)).toBe(false);
    expect(scan(JSON.stringify({ text: 'a\\', then: [[[]]] }), 3)).toBe(true);
    expect(scan(JSON.stringify(['ends in a backslash\\', '[[[[']), 1)).toBe(false);
  });

  it('reads multi-byte characters as text (no UTF-8 continuation byte is a bracket or a quote)', () => {
    expect(scan(JSON.stringify({ text: '嬀 ［「」］ 🧱'.repeat(50) }), 1)).toBe(false);
  });

  it('is not fooled by bodies that are not JSON: an unterminated string, more closings than openings', () => {
    expect(scan('["[[[[[[', 1)).toBe(false);
    expect(scan(`]]]]${nested(3)}`, 3)).toBe(false);
    expect(scan(`]]]]${nested(4)}`, 3)).toBe(true);
  });

  it('a million levels are found without recursion', () => {
    expect(scan('['.repeat(1_000_000), 128)).toBe(true);
  });
});
