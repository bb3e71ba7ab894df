/**
 * Server-Sent Events for contract tests (SPEC 3.4, 6.2): a POST whose answer is read to the end and split into
 * its `data:` payloads, `[DONE]` included, beside the raw text so byte-level checks stay possible.
 */

export interface SseResponse {
  status: number;
  headers: Headers;
  /** The body exactly as received. */
  raw: string;
  /** Every event's data (multi-line data joined by `\n`), in order; the terminator appears as `[DONE]`. */
  frames: string[];
}

/** Splits an event-stream body into its data payloads; comments, `event:` and `id:` lines are ignored. */
export function parseSse(raw: string): string[] {
  const frames: string[] = [];
  for (const block of raw.replace(/\r\n?/g, '\n').split(/\n\n/)) {
    const data = block
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice('data:'.length).replace(/^ /, ''));
    if (data.length > 0) frames.push(data.join('\n'));
  }
  return frames;
}

/** Reads a fetch Response body to the end as SSE frames. */
export async function readSse(response: Response): Promise<SseResponse> {
  const raw = await response.text();
  return { status: response.status, headers: response.headers, raw, frames: parseSse(raw) };
}

/** POSTs a JSON body with a Bearer key and reads the answer as SSE (whatever its content type). */
export async function postSse(
  baseUrl: string,
  path: string,
  options: { key: string; body: unknown },
): Promise<SseResponse> {
  const response = await fetch(baseUrl + path, {
    method: 'POST',
    headers: {
      'user-agent': 'contract-tests/1',
      'content-type': 'application/json',
      authorization: `Bearer ${options.key}`,
    },
    body: JSON.stringify(options.body),
  });
  return readSse(response);
}

/** The JSON frames of a stream (everything but `[DONE]`). */
export function jsonFrames(frames: string[]): Record<string, any>[] {
  return frames.filter((f) => f !== '[DONE]').map((f) => JSON.parse(f) as Record<string, any>);
}
