/**
 * Reads a delivered message as a mail client would, for tests (mailparser is not a dependency): the headers
 * (unfolded, RFC 2047 encoded words decoded), and the text and HTML bodies, quoted-printable or base64 decoded,
 * from a single part or a multipart/alternative. Only what nodemailer writes for the mailer port is covered.
 */
import { parseHeaderValue } from 'nodemailer/lib/mime-funcs';

export interface ParsedMail {
  /** Lower-cased names; the first value of each, decoded. */
  headers: Map<string, string>;
  text?: string;
  html?: string;
}

/** `raw` is the DATA an SMTP server received (CRLF line ends, dot-stuffing already undone). */
export function parseMail(raw: string): ParsedMail {
  const { headers, body } = splitHeaders(raw);
  const mail: ParsedMail = { headers };
  readPart(headers, body, mail);
  return mail;
}

function splitHeaders(raw: string): { headers: Map<string, string>; body: string } {
  const end = raw.indexOf('\r\n\r\n');
  const head = end === -1 ? raw : raw.slice(0, end);
  const body = end === -1 ? '' : raw.slice(end + 4);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, decodeWords(line.slice(colon + 1).trim()));
  }
  return { headers, body };
}

function readPart(headers: Map<string, string>, body: string, mail: ParsedMail): void {
  const type = parseHeaderValue(headers.get('content-type') ?? 'text/plain');
  const mimeType = type.value.toLowerCase();
  if (mimeType.startsWith('multipart/')) {
    const boundary = type.params.boundary;
    if (boundary === undefined) throw new Error(`${mimeType} without a boundary`);
    for (const part of multipartBodies(body, boundary)) {
      const inner = splitHeaders(part);
      readPart(inner.headers, inner.body, mail);
    }
    return;
  }
  const content = decodeBody(body, headers.get('content-transfer-encoding') ?? '7bit');
  if (mimeType === 'text/plain' && mail.text === undefined) mail.text = content;
  if (mimeType === 'text/html' && mail.html === undefined) mail.html = content;
}

/** The parts between `--boundary` lines, without the CRLF that belongs to each delimiter. */
function multipartBodies(body: string, boundary: string): string[] {
  const delimiter = `--${boundary}`;
  const [, ...parts] = body.split(new RegExp(`(?:^|\\r\\n)${escapeRegExp(delimiter)}(?:--)?[ \\t]*(?:\\r\\n|$)`));
  return parts.slice(0, -1);
}

function decodeBody(body: string, encoding: string): string {
  const trimmed = body.replace(/\r\n$/, '');
  switch (encoding.toLowerCase()) {
    case 'quoted-printable':
      return decodeQuotedPrintable(trimmed).replace(/\r\n/g, '\n');
    case 'base64':
      return Buffer.from(trimmed, 'base64').toString('utf8').replace(/\r\n/g, '\n');
    default:
      return trimmed.replace(/\r\n/g, '\n');
  }
}

/** RFC 2045 6.7: `=` at a line's end is a soft break (removed, with any padding after it), `=XX` one byte. */
function decodeQuotedPrintable(encoded: string): string {
  return quotedPrintableBytes(encoded.replace(/=[ \t]*\r\n/g, '')).toString('utf8');
}

function quotedPrintableBytes(joined: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < joined.length; i++) {
    const hex = joined.slice(i + 1, i + 3);
    if (joined[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else bytes.push(...Buffer.from(joined[i]!, 'utf8'));
  }
  return Buffer.from(bytes);
}

const ENCODED_WORD = /=\?[^?]+\?([QqBb])\?([^?]*)\?=/g;

/**
 * RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`): whitespace between two of them is dropped, and a run
 * of them is decoded as one byte sequence (a character may be split across two words).
 */
function decodeWords(value: string): string {
  return value
    .replace(/(\?=)\s+(=\?)/g, '$1$2')
    .replace(/(?:=\?[^?]+\?[QqBb]\?[^?]*\?=)+/g, (run) =>
      Buffer.concat(
        [...run.matchAll(ENCODED_WORD)].map(([, encoding, text]) =>
          encoding!.toUpperCase() === 'B'
            ? Buffer.from(text!, 'base64')
            : quotedPrintableBytes(text!.replace(/_/g, ' ')),
        ),
      ).toString('utf8'),
    );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
