/**
 * `load` run once, on the first call, its promise kept: a library imported when first needed instead of at start, so
 * a process that never needs it never holds its code (bench/README.md, "Memory"). A failed load stays failed.
 */
export function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  return () => {
    loaded ??= load();
    return loaded;
  };
}
