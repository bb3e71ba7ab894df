/**
 * GET /v1/files/{file}: a hosted file behind its signed link, with its own Content-Type and a cache lifetime that
 * ends with the link; a tampered, foreign-name or expired link is 403 file_link_invalid; a swept file 404.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeError } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ PUBLIC_BASE_URL: 'https://files.example.test' });
});
afterAll(() => h.close());

const MINUTE = 60_000;
const name = () => `job_${randomBytes(6).toString('hex')}-0.png`;
/** The link's path and query, to call the harness with. */
const pathOf = (link: string) => {
  const url = new URL(link);
  expect(url.origin).toBe('https://files.example.test');
  return url.pathname + url.search;
};

describe('GET /v1/files/{file}', () => {
  it('200: the bytes with their type, no key needed, cached no longer than the link lives', async () => {
    const file = name();
    const bytes = randomBytes(5_000);
    const expiresAtMs = h.deps.now() + 15 * MINUTE;
    await h.deps.blobs.put(file, bytes, { contentType: 'image/png', expiresAtMs });
    const response = await fetch(h.baseUrl + pathOf(h.deps.fileLinks.link(file, expiresAtMs)));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
    const maxAge = Number(/max-age=(\d+)/.exec(response.headers.get('cache-control') ?? '')?.[1]);
    expect(maxAge).toBeGreaterThan(14 * 60);
    expect(maxAge).toBeLessThanOrEqual(15 * 60);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('403 file_link_invalid: a changed signature, another file’s signature, an expired link', async () => {
    const file = name();
    const other = name();
    const expiresAtMs = h.deps.now() + 15 * MINUTE;
    await h.deps.blobs.put(file, Buffer.from('x'), { contentType: 'image/png', expiresAtMs });
    const link = new URL(h.deps.fileLinks.link(file, expiresAtMs));
    const signature = link.searchParams.get('signature')!;
    const tampered = `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`;
    expectNativeError(
      await call(
        h.baseUrl,
        'GET',
        `${link.pathname}?expires=${link.searchParams.get('expires')}&signature=${tampered}`,
      ),
      403,
      'file_link_invalid',
    );
    const foreign = new URL(h.deps.fileLinks.link(other, expiresAtMs));
    expectNativeError(await call(h.baseUrl, 'GET', `${link.pathname}${foreign.search}`), 403, 'file_link_invalid');
    const expired = h.deps.fileLinks.link(file, h.deps.now() - 1_000);
    expectNativeError(await call(h.baseUrl, 'GET', pathOf(expired)), 403, 'file_link_invalid');
  });

  it('404 file_not_found once the file was swept; 400 for a malformed link', async () => {
    const file = name();
    const expiresAtMs = h.deps.now() + 15 * MINUTE;
    await h.deps.blobs.put(file, Buffer.from('x'), { contentType: 'image/png', expiresAtMs });
    await h.deps.blobs.delete(file);
    expectNativeError(
      await call(h.baseUrl, 'GET', pathOf(h.deps.fileLinks.link(file, expiresAtMs))),
      404,
      'file_not_found',
    );
    expectNativeError(await call(h.baseUrl, 'GET', `/v1/files/${file}?expires=1&signature=zz`), 400, 'invalid_request');
  });
});
