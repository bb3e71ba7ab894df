/**
 * `load` run once, on the first call, its result kept: a library imported (a promise) or a table built when first
 * needed instead of at start, so a process that never needs it never holds it (bench/README.md, "Memory"). A failed
 * import stays failed.
 */
export function onFirstUse<T>(load: () => T): () => T {
  let loaded: { value: T } | undefined;
  return () => {
    loaded ??= { value: load() };
    return loaded.value;
  };
}
