import { once } from 'node:events';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Response } from 'express';

/** Bytes written before the event loop gets a turn (a few milliseconds of serialising at most). */
const SLICE_BYTES = 256 * 1024;

/**
 * Writes `body` as JSON with its long array `field` serialised one item at a time (2048 embeddings of 3072 floats
 * are 130 MB of JSON: one JSON.stringify would hold the event loop for a second and the memory twice). Between
 * slices the loop gets a turn, and a slow reader is waited for (drain) instead of buffered. A client that leaves
 * stops the writing.
 */
export async function writeJsonInPieces(
  res: Response,
  status: number,
  body: Record<string, unknown>,
  field: string,
): Promise<void> {
  const { [field]: items, ...rest } = body;
  const head = JSON.stringify(rest);
  res.status(status).type('application/json');
  let pending = `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}${JSON.stringify(field)}:[`;
  const list = Array.isArray(items) ? items : [];
  for (const [i, item] of list.entries()) {
    pending += (i > 0 ? ',' : '') + JSON.stringify(item);
    if (pending.length < SLICE_BYTES) continue;
    if (!(await flush(res, pending))) return;
    pending = '';
  }
  res.end(`${pending}]}`);
}

/** Writes one slice; false when the client is gone. */
async function flush(res: Response, slice: string): Promise<boolean> {
  if (res.destroyed) return false;
  if (!res.write(slice)) {
    const stop = new AbortController(); // the listener that did not fire is removed, not left behind per slice
    await Promise.race([
      once(res, 'drain', { signal: stop.signal }),
      once(res, 'close', { signal: stop.signal }),
    ]).catch(() => undefined);
    stop.abort();
  }
  await nextTurn();
  return !res.destroyed;
}
