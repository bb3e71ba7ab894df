/**
 * The upstream stream reader's Server-Sent-Events parser over byte chunks, yielding each event's data string.
 * Chat upstreams stream as SSE (SPEC 4.2, 6.2); the gateway forwards every data payload as it was sent, so this
 * only splits, it never interprets: `[DONE]` detection is the caller's.
 *
 * The event-stream grammar (line endings split anywhere across chunks, multi-line data, comments, `event:`, `id:`,
 * `retry:` and unknown fields tolerated) is `eventsource-parser`'s. What stays ours:
 * - bytes to text: a streaming TextDecoder reassembles UTF-8 characters split across chunks and drops a leading
 *   byte-order mark (the library sees text only);
 * - the size rule: one event larger than the limit is an SseEventTooLargeError, so an upstream that never ends a
 *   line cannot exhaust memory;
 * - the truncation rule at the end of the input: an event whose lines all arrived complete is dispatched even
 *   without the final empty line (some servers close right after `data: [DONE]\n`); an event whose last line was
 *   cut off mid-way is dropped whole, so a truncated JSON payload is never passed on as if it were complete.
 */
import { createParser, type EventSourceParser, type ParseError } from 'eventsource-parser';

/** Thrown when one event grows past the limit: an upstream that never ends a line must not exhaust memory. */
export class SseEventTooLargeError extends Error {
  constructor(limitChars: number) {
    super(`server-sent event larger than ${limitChars} characters`);
    this.name = 'SseEventTooLargeError';
  }
}

/** Generous: a chat chunk is a few hundred bytes, but one can carry a whole base64 image. */
const DEFAULT_MAX_EVENT_CHARS = 32 * 1024 * 1024;

/**
 * Fed at the end of an input whose last line ended: completes a pending `\r` (a `\r\n` is one line ending) and
 * adds the empty line that dispatches the event the server left open.
 */
const END_OF_INPUT = '\n\n';

export class SseParser {
  readonly #decoder = new TextDecoder('utf-8');
  readonly #maxEventChars: number;
  readonly #parser: EventSourceParser;
  /** The data of the events completed by the text being fed, in order. */
  #completed: string[] = [];
  #tooLarge = false;
  /** The last character fed was a line ending: no line is cut off mid-way. */
  #atLineStart = true;

  constructor(options: { maxEventChars?: number } = {}) {
    this.#maxEventChars = options.maxEventChars ?? DEFAULT_MAX_EVENT_CHARS;
    this.#parser = createParser({
      maxBufferSize: this.#maxEventChars,
      onEvent: (event) => this.#completed.push(event.data),
      // Only the size rule is an error; unknown fields and a bad `retry` are tolerated (no chat vendor puts
      // meaning there that we forward).
      onError: (error: ParseError) => {
        if (error.type === 'max-buffer-size-exceeded') this.#tooLarge = true;
      },
    });
  }

  /** Feeds one chunk of bytes; returns the data of every event it completed, in order. */
  push(chunk: Uint8Array): string[] {
    return this.#feed(this.#decoder.decode(chunk, { stream: true }));
  }

  /** Ends the input; returns the data of a last event whose lines all arrived (see the file comment). */
  end(): string[] {
    const events = this.#feed(this.#decoder.decode());
    if (this.#atLineStart) events.push(...this.#feed(END_OF_INPUT));
    this.#parser.reset();
    this.#atLineStart = true;
    return events;
  }

  #feed(text: string): string[] {
    // Once too large, the library parser is terminated: every later call fails the same way.
    if (text !== '' && !this.#tooLarge) {
      this.#parser.feed(text);
      const last = text.charAt(text.length - 1);
      this.#atLineStart = last === '\n' || last === '\r';
    }
    const events = this.#completed;
    this.#completed = [];
    if (this.#tooLarge) throw new SseEventTooLargeError(this.#maxEventChars);
    return events;
  }
}
