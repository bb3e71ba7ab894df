/** Files the service hosts, fetched as a client would follow their links. */
import { expect } from 'vitest';
import type { Harness } from './harness.js';

/** The file behind a hosted link, fetched from the harness whatever origin the link names; it must answer 200. */
export async function fetchHosted(
  h: Harness,
  link: string,
): Promise<{ type: string | null; bytes: Buffer; path: string }> {
  const url = new URL(link);
  const response = await fetch(h.baseUrl + url.pathname + url.search);
  expect(response.status).toBe(200);
  return {
    type: response.headers.get('content-type'),
    bytes: Buffer.from(await response.arrayBuffer()),
    path: url.pathname,
  };
}
