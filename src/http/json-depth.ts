/**
 * A nesting cap on JSON request bodies, checked on the raw bytes before they are parsed (issue rule "client
 * mistakes are 4xx"). Whatever walks a parsed body recursively (the contract's validator, the idempotency
 * fingerprint, prompt counting, JSON.stringify) overflows the stack on a body nested a few thousand levels deep,
 * and 20 MB of `[` would parse into ten million arrays. Real bodies nest a few levels, JSON Schemas in `tools` or
 * `response_format` a few dozen; the cap leaves them ample room.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export const MAX_JSON_DEPTH = 128;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether `bytes` (UTF-8 JSON, well formed or not) opens more than `maxDepth` arrays and objects at once. One pass;
 * strings are skipped with indexOf, so base64 images cost next to nothing. Every byte below 0x80 is itself in
 * UTF-8, so brackets and quotes inside multi-byte characters cannot be miscounted.
 */
export function nestsDeeperThan(bytes: Buffer, maxDepth: number): boolean {
  let depth = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte === QUOTE) i = closingQuote(bytes, i);
    else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > maxDepth) return true;
    } else if ((byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) && depth > 0) depth--; // stray closings buy no depth
  }
  return false;
}

/** The index of the quote that ends the string opened at `open` (the end of the bytes when it never ends). */
function closingQuote(bytes: Buffer, open: number): number {
  let at = open;
  for (;;) {
    at = bytes.indexOf(QUOTE, at + 1);
    if (at === -1) return bytes.length;
    let backslashes = 0;
    while (bytes[at - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

/**
 * An error in body-parser's shape (a `type`), so the error handler maps it as it maps the parser's own
 * (errors/from-unknown.ts); body-parser rewrites the status of whatever `verify` throws.
 */
class BodyRefused extends Error {
  constructor(
    readonly type: 'entity.too.deep' | 'charset.unsupported',
    message: string,
  ) {
    super(message);
  }
}

/**
 * express.json's `verify` hook: runs on the raw body before it is parsed. A body in UTF-16 (which JSON allows) is
 * decoded first, as its brackets are not single bytes.
 */
export function refuseDeepJson(_req: IncomingMessage, _res: ServerResponse, body: Buffer, encoding: string): void {
  if (nestsDeeperThan(asUtf8(body, encoding), MAX_JSON_DEPTH)) {
    throw new BodyRefused(
      'entity.too.deep',
      `arrays and objects are nested more than ${MAX_JSON_DEPTH} deep (the limit of this service)`,
    );
  }
}

function asUtf8(body: Buffer, encoding: string): Buffer {
  if (/^utf-?8$/i.test(encoding)) return body;
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(encoding);
  } catch {
    throw new BodyRefused('charset.unsupported', `unsupported charset "${encoding.toUpperCase()}"`);
  }
  return Buffer.from(decoder.decode(body), 'utf8');
}
