/**
 * Iterates a `text/event-stream` answer of the service (SPEC 6.2): every stream ends with `data: [DONE]`, and a
 * stream that failed after it opened carries one error frame first. Both become what a caller can act on: the
 * error frame is thrown as a `GatewayError`, and a body that ends without `[DONE]` is thrown as
 * `stream_truncated`, so a cut connection never looks like a finished answer.
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { errorFromFailure, GatewayError } from './errors.js';

export interface StreamFrame {
  /** The SSE `event:` name (Responses streams name every event), or undefined. */
  event: string | undefined;
  data: unknown;
}

const frameError = (data: unknown, requestId: string | undefined): GatewayError | undefined => {
  if (typeof data !== 'object' || data === null) return undefined;
  const error = (data as { error?: unknown }).error;
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message, type } = error as Record<string, unknown>;
  const text = String(code ?? type ?? 'stream_error');
  return new GatewayError({
    status: 200,
    code: text,
    message: typeof message === 'string' ? message : text,
    requestId,
    retryable: type === 'api_error' || type === 'rate_limit_error',
  });
};

export async function* iterateFrames(response: Response, signal?: AbortSignal | null): AsyncGenerator<StreamFrame> {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  if (response.body === null) throw truncated(requestId);
  const events = response.body.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
  const reader = events.getReader();
  try {
    for (;;) {
      let next: ReadableStreamReadResult<{ event?: string | undefined; data: string }>;
      try {
        next = await reader.read();
      } catch (cause) {
        throw signal?.aborted ? errorFromFailure(cause, signal) : truncated(requestId, cause);
      }
      if (next.done) throw truncated(requestId);
      const { event, data } = next.value;
      if (data === '[DONE]') return;
      const parsed: unknown = JSON.parse(data);
      const failure = frameError(parsed, requestId);
      if (failure) throw failure;
      yield { event, data: parsed };
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

const truncated = (requestId: string | undefined, cause?: unknown) =>
  new GatewayError({
    status: 200,
    code: 'stream_truncated',
    message: 'the stream ended before the service said it was done; nothing after this point arrived',
    requestId,
    retryable: true,
    cause,
  });
