/** The protobuf wire rules of src/lib/tron/protobuf.ts against the encoding guide's own examples. */
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { bytesField, bytesOf, readFields, varintField, varintOf } from '../../src/lib/tron/protobuf.js';

describe('protobuf wire format', () => {
  it('writes the guide’s examples: field 1 = 150 is 08 96 01; field 2 = "testing" is 12 07 74…', () => {
    // protobuf.dev/programming-guides/encoding: "Test1 a = 150" and "Test2 b = testing".
    expect(bytesToHex(Uint8Array.from(varintField(1, 150)))).toBe('089601');
    expect(bytesToHex(Uint8Array.from(bytesField(2, new TextEncoder().encode('testing'))))).toBe('120774657374696e67');
    // Field 18 (fee_limit) needs a two-byte key: (18 << 3) | 0 = 144 = 90 01.
    expect(bytesToHex(Uint8Array.from(varintField(18, 100_000_000n)))).toBe('900180c2d72f');
  });

  it('omits zero and empty values, as proto3 does', () => {
    expect(varintField(8, 0)).toEqual([]);
    expect(bytesField(4, new Uint8Array())).toEqual([]);
  });

  it('reads fields back, keeps the last of a repeated scalar, and skips fixed-width fields it does not know', () => {
    const bytes = hexToBytes(`089601${'09'}${'11'.repeat(8)}${'15'}${'22'.repeat(4)}0802120774657374696e67120161`);
    const fields = readFields(bytes);
    expect(varintOf(fields, 1)).toBe(2n);
    expect(bytesOf(fields, 2).map((b) => new TextDecoder().decode(b))).toEqual(['testing', 'a']);
    expect(varintOf(fields, 7)).toBe(0n);
  });

  it('throws on truncated varints and lengths, field 0 and group wire types', () => {
    for (const bad of ['08', '0896', '1205616263', '0001', '0b0c', `08${'ff'.repeat(10)}01`]) {
      expect(() => readFields(hexToBytes(bad))).toThrow(RangeError);
    }
  });
});
