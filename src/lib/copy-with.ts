/**
 * A shallow copy of `base` with `fields` set on it: what `{ ...base, ...fields }` means, built the way Node 20's
 * V8 keeps fast on a hot path. A spread followed by keys `base` does not have (`{ ...line, accountId }`) gets a
 * hidden class of its own on every call: about 10 µs, a few hundred bytes of maps in the old generation, and
 * objects that young-generation collections then keep promoting (bench/README.md). Copying into
 * an empty object walks the shared transitions instead. Past a dozen or so fields the copy is a dictionary-mode
 * object (one shared hidden class, slower to read): a record that large is better written out field by field.
 */
export function copyWith<T extends object, U extends object>(base: T, fields: U): Omit<T, keyof U> & U {
  return Object.assign({}, base, fields);
}
