/**
 * The few protobuf wire rules a TRON transaction needs (protobuf.dev/programming-guides/encoding): varints, and
 * length-delimited fields, written in field order the way java-tron's generated code writes them, so that our
 * bytes (and so the txid) equal the node's. Reading skips fields it does not know, as protobuf readers do.
 */

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

function varint(value: bigint): number[] {
  if (value < 0n) throw new RangeError('negative varints are not used here');
  const out: number[] = [];
  let rest = value;
  do {
    const low = Number(rest & 0x7fn);
    rest >>= 7n;
    out.push(rest > 0n ? low | 0x80 : low);
  } while (rest > 0n);
  return out;
}

/** A varint field; zero is omitted, as proto3 writes defaults. */
export function varintField(field: number, value: bigint | number): number[] {
  const v = BigInt(value);
  return v === 0n ? [] : [...varint(BigInt((field << 3) | VARINT)), ...varint(v)];
}

/** A length-delimited field (bytes, string, message); empty is omitted, as proto3 writes defaults. */
export function bytesField(field: number, value: Uint8Array | readonly number[]): number[] {
  if (value.length === 0) return [];
  return [...varint(BigInt((field << 3) | LENGTH_DELIMITED)), ...varint(BigInt(value.length)), ...value];
}

export type FieldValue = { wire: 'varint'; value: bigint } | { wire: 'bytes'; value: Uint8Array };

/** One decoded field; fixed-width fields are skipped (none of ours uses them). */
export interface Field {
  field: number;
  value: FieldValue;
}

/** Every field of one message in order; throws `RangeError` on truncated or malformed bytes. */
export function readFields(bytes: Uint8Array): Field[] {
  const fields: Field[] = [];
  let at = 0;
  const next = (): bigint => {
    let result = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      const byte = bytes[at++];
      if (byte === undefined) throw new RangeError('truncated varint');
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
    }
    throw new RangeError('varint too long');
  };
  const skip = (length: number): void => {
    if (at + length > bytes.length) throw new RangeError('truncated field');
    at += length;
  };
  while (at < bytes.length) {
    const key = Number(next());
    const field = key >>> 3;
    const wire = key & 7;
    if (field === 0) throw new RangeError('field number 0');
    if (wire === VARINT) fields.push({ field, value: { wire: 'varint', value: next() } });
    else if (wire === LENGTH_DELIMITED) {
      const length = Number(next());
      const start = at;
      skip(length);
      fields.push({ field, value: { wire: 'bytes', value: bytes.subarray(start, at) } });
    } else if (wire === FIXED64) skip(8);
    else if (wire === FIXED32) skip(4);
    else throw new RangeError(`unsupported wire type ${wire}`);
  }
  return fields;
}

/** The last value of a varint field (protobuf: the last one wins), or 0 when absent. */
export function varintOf(fields: readonly Field[], field: number): bigint {
  let found = 0n;
  for (const f of fields) if (f.field === field && f.value.wire === 'varint') found = f.value.value;
  return found;
}

/** Every value of a length-delimited field, in order (repeated fields). */
export function bytesOf(fields: readonly Field[], field: number): Uint8Array[] {
  return fields.flatMap((f) => (f.field === field && f.value.wire === 'bytes' ? [f.value.value] : []));
}
