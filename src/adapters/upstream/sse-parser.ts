/**
 * An incremental Server-Sent-Events parser (the WHATWG "event stream" grammar) over byte chunks, yielding each
 * event's data string. Chat upstreams stream as SSE (SPEC 4.2, 6.2); the gateway forwards every data payload
 * as it was sent, so this parser only splits, it never interprets: `[DONE]` detection is the caller's.
 *
 * - Lines end with `\n`, `\r\n` or a lone `\r`, and any of them may be split across chunks (a `\r` at the end of
 *   one chunk and a `\n` at the start of the next are one line ending). UTF-8 characters split across chunks
 *   are reassembled by a streaming TextDecoder, which also drops a leading byte-order mark.
 * - An empty line dispatches the event; several `data:` lines of one event are joined with `\n`.
 * - Lines starting with `:` are comments (keep-alives some vendors send) and are ignored; `event:`, `id:`,
 *   `retry:` and unknown fields are tolerated and ignored: no chat vendor puts meaning there that we forward.
 * - At the end of the input, an event whose lines all arrived complete is dispatched even without the final
 *   empty line (some servers close right after `data: [DONE]\n`); an event whose last line was cut off mid-way
 *   is dropped whole, so a truncated JSON payload is never passed on as if it were complete.
 */

/** Thrown when one event grows past the limit: an upstream that never ends a line must not exhaust memory. */
export class SseEventTooLargeError extends Error {
  constructor(limitChars: number) {
    super(`server-sent event larger than ${limitChars} characters`);
    this.name = 'SseEventTooLargeError';
  }
}

/** Generous: a chat chunk is a few hundred bytes, but one can carry a whole base64 image. */
const DEFAULT_MAX_EVENT_CHARS = 32 * 1024 * 1024;

const LINE_END = /\r\n|\r|\n/g;

export class SseParser {
  readonly #decoder = new TextDecoder('utf-8');
  readonly #maxEventChars: number;
  /** Text after the last line ending seen: the start of a line still arriving. */
  #partial = '';
  /** The data lines of the event being built; null while the event has no `data` field. */
  #data: string[] | null = null;
  #dataChars = 0;
  /** The previous chunk ended with `\r`: a `\n` opening the next chunk belongs to that line ending. */
  #skipLeadingLf = false;

  constructor(options: { maxEventChars?: number } = {}) {
    this.#maxEventChars = options.maxEventChars ?? DEFAULT_MAX_EVENT_CHARS;
  }

  /** Feeds one chunk of bytes; returns the data of every event it completed, in order. */
  push(chunk: Uint8Array): string[] {
    return this.#feed(this.#decoder.decode(chunk, { stream: true }));
  }

  /** Ends the input; returns the data of a last event whose lines all arrived (see the file comment). */
  end(): string[] {
    const events = this.#feed(this.#decoder.decode());
    const lastLineCut = this.#partial !== '';
    this.#partial = '';
    if (this.#data !== null && !lastLineCut) events.push(this.#dispatch());
    this.#data = null;
    this.#dataChars = 0;
    return events;
  }

  #feed(text: string): string[] {
    let input = text;
    if (this.#skipLeadingLf && input.length > 0) {
      if (input.startsWith('\n')) input = input.slice(1);
      this.#skipLeadingLf = false;
    }
    // Only the new text is searched for line endings, so a long line arriving in many chunks costs linear time.
    const events: string[] = [];
    let lineStart = 0;
    LINE_END.lastIndex = 0;
    for (let match = LINE_END.exec(input); match !== null; match = LINE_END.exec(input)) {
      const event = this.#line(this.#partial + input.slice(lineStart, match.index));
      this.#partial = '';
      if (event !== null) events.push(event);
      lineStart = match.index + match[0].length;
    }
    this.#partial += input.slice(lineStart);
    // A trailing `\r` was taken as a whole line ending; remember it in case its `\n` comes next.
    if (lineStart === input.length && input.endsWith('\r')) this.#skipLeadingLf = true;
    if (this.#partial.length + this.#dataChars > this.#maxEventChars)
      throw new SseEventTooLargeError(this.#maxEventChars);
    return events;
  }

  /** Processes one complete line; returns an event's data when the line dispatched one. */
  #line(line: string): string | null {
    if (line === '') return this.#data === null ? null : this.#dispatch();
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field !== 'data') return null;
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    this.#data ??= [];
    this.#data.push(value);
    this.#dataChars += value.length + 1;
    if (this.#dataChars > this.#maxEventChars) throw new SseEventTooLargeError(this.#maxEventChars);
    return null;
  }

  #dispatch(): string {
    const data = (this.#data ?? []).join('\n');
    this.#data = null;
    this.#dataChars = 0;
    return data;
  }
}
