/**
 * The fetch every SDK request goes through. A POST gets an `Idempotency-Key` (the service honours it on every
 * paid POST, SPEC 7.2), kept across retries, so a retry after a lost answer is never a second charge. A request
 * is retried only when no answer came or the answer says so (`x-should-retry: true`, DESIGN.md 3), with backoff
 * that honours `Retry-After`.
 */
export interface RetryPolicy {
  /** Further attempts after the first; 0 turns retries off. Default 2. */
  maxRetries: number;
  /** First backoff in ms, doubled each attempt, with jitter. Default 500. */
  baseDelayMs: number;
  /** No single wait is longer, whatever `Retry-After` says. Default 20 000. */
  maxDelayMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { maxRetries: 2, baseDelayMs: 500, maxDelayMs: 20_000 };

const retryAfterMs = (response: Response): number | undefined => {
  const header = response.headers.get('retry-after');
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
};

const shouldRetry = (response: Response): boolean => {
  const hint = response.headers.get('x-should-retry');
  if (hint !== null) return hint === 'true';
  return response.status === 429 || response.status >= 500;
};

export const sleep = (ms: number, signal?: AbortSignal | null): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export function retryingFetch(policy: RetryPolicy, inner: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init) => {
    const first = new Request(input, init);
    if (first.method === 'POST' && !first.headers.has('idempotency-key')) {
      first.headers.set('idempotency-key', crypto.randomUUID());
    }
    for (let attempt = 0; ; attempt += 1) {
      const request = attempt < policy.maxRetries ? first.clone() : first;
      const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt * (0.75 + Math.random() / 2));
      let response: Response;
      try {
        response = await inner(request);
      } catch (error) {
        if (attempt >= policy.maxRetries || first.signal.aborted) throw error;
        await sleep(backoff, first.signal);
        continue;
      }
      if (attempt >= policy.maxRetries || !shouldRetry(response)) return response;
      await response.body?.cancel();
      await sleep(Math.min(policy.maxDelayMs, retryAfterMs(response) ?? backoff), first.signal);
    }
  };
}
