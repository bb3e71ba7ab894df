import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed, expiring links to the files the service hosts (`GET /v1/files/{file}?expires&signature`): the link is
 * the credential, so a file can be handed to a browser or another service without an API key, and it stops
 * working when the file's retention ends (SPEC 3.1, 8).
 */
export class FileLinks {
  constructor(
    private readonly secret: Buffer,
    /** Where clients reach this service, e.g. `https://api.example.com` (PUBLIC_BASE_URL). */
    private readonly baseUrl: string,
  ) {}

  /** The link to `name`, valid until `expiresAtMs` (to the second, never past it). */
  link(name: string, expiresAtMs: number): string {
    const expires = Math.floor(expiresAtMs / 1000);
    return `${this.baseUrl}/v1/files/${encodeURIComponent(name)}?expires=${expires}&signature=${this.#sign(name, expires)}`;
  }

  /** Whether the link's signature is ours for `name` and `expires`, and `expires` is still ahead of `nowMs`. */
  verify(name: string, expires: number, signature: string, nowMs: number): boolean {
    const expected = Buffer.from(this.#sign(name, expires), 'hex');
    const given = Buffer.from(signature, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected) && expires * 1000 > nowMs;
  }

  /** The name of the file a link of ours points at, while it is valid; null for any other link. */
  hostedName(link: string, nowMs: number): string | null {
    const prefix = `${this.baseUrl}/v1/files/`;
    if (!link.startsWith(prefix) || !URL.canParse(link)) return null;
    const url = new URL(link);
    const name = decodeURIComponent(url.pathname.slice(url.pathname.lastIndexOf('/') + 1));
    const expires = Number(url.searchParams.get('expires'));
    const signature = url.searchParams.get('signature') ?? '';
    return Number.isSafeInteger(expires) &&
      /^[0-9a-f]+$/.test(signature) &&
      this.verify(name, expires, signature, nowMs)
      ? name
      : null;
  }

  #sign(name: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`${name}\n${expires}`).digest('hex');
  }
}
