import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeError } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** Every `src` and `href` of the page. */
function linksOf(html: string): string[] {
  return [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((match) => match[1]!);
}

/** The renderer's own file, as the npm package ships it. */
function packageFile(file: string): Buffer {
  return readFileSync(createRequire(import.meta.url).resolve(`swagger-ui-dist/${file}`));
}

describe('GET /docs', () => {
  it('200 text/html that loads only files this gateway serves, under a CSP of this origin only', async () => {
    const response = await call(h.baseUrl, 'GET', '/docs');
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/unsafe-|https?:|\*/);
    expect(response.text).toContain('<title>compute-gateway: API reference</title>');
    expect(response.text).not.toMatch(/<script>|<style|\sstyle=/); // nothing inline for the CSP to refuse
    const links = linksOf(response.text);
    expect(links.length).toBe(4);
    for (const link of links) expect(link).toMatch(/^\/docs\/assets\/[\w-]+\.[0-9a-f]{12}\.(js|css|png)$/);
  });

  it('its assets: 200 with their type, cached for a year, the renderer byte for byte from its npm package', async () => {
    const links = linksOf((await call(h.baseUrl, 'GET', '/docs')).text);
    const bundle = links.find((link) => link.includes('/swagger-ui-bundle.'))!;
    const plain = await fetch(h.baseUrl + bundle, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(Buffer.from(await plain.arrayBuffer()).equals(packageFile('swagger-ui-bundle.js'))).toBe(true);
    const types: Record<string, RegExp> = { js: /^text\/javascript/, css: /^text\/css/, png: /^image\/png$/ };
    for (const link of links) {
      const asset = await call(h.baseUrl, 'GET', link);
      expect(asset.status, link).toBe(200);
      expect(asset.headers.get('content-type')).toMatch(types[link.split('.').pop()!]!);
      expect(asset.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const starter = (await call(h.baseUrl, 'GET', links.find((link) => link.includes('/reference-page.'))!)).text;
    expect(starter).toContain('fetch("/openapi.json")');
    expect(starter).toContain('spec.servers = [{ url: window.location.origin'); // "Try it out" calls this gateway
    expect(starter).toContain('validatorUrl: null');
  });

  it('assets are gzipped for a client that asks, and the bytes are the same once unzipped', async () => {
    const links = linksOf((await call(h.baseUrl, 'GET', '/docs')).text);
    const stylesheet = links.find((link) => link.includes('/swagger-ui.'))!;
    // A raw request: fetch would unzip on its own and hide the encoding.
    const { request } = await import('node:http');
    const zipped = await new Promise<{ encoding?: string; vary?: string; body: Buffer }>((resolve, reject) => {
      request(
        h.baseUrl + stylesheet,
        { headers: { 'accept-encoding': 'gzip', 'user-agent': 'contract-tests/1' } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () =>
            resolve({ encoding: res.headers['content-encoding'], vary: res.headers.vary, body: Buffer.concat(chunks) }),
          );
        },
      )
        .on('error', reject)
        .end();
    });
    expect(zipped.encoding).toBe('gzip');
    expect(zipped.vary).toBe('Accept-Encoding');
    const css = gunzipSync(zipped.body).toString('utf8');
    expect(css).toContain('.swagger-ui');
    // The source map the package names is not served, so it is not named either.
    expect(css).not.toContain('sourceMappingURL');
    expect(packageFile('swagger-ui.css').toString('utf8')).toContain(css.slice(0, 2000));
  });

  it('an unknown asset is 404 route_not_found (native envelope)', async () => {
    expectNativeError(await call(h.baseUrl, 'GET', '/docs/assets/swagger-ui-bundle.js'), 404, 'route_not_found');
    expectNativeError(await call(h.baseUrl, 'GET', '/docs/assets/..%2Fopenapi.json'), 404, 'route_not_found');
  });

  it('public while the rest of the API needs a key: a bogus key still gets the page', async () => {
    expect((await call(h.baseUrl, 'GET', '/v1/account')).status).toBe(401);
    const response = await call(h.baseUrl, 'GET', '/docs', { key: `cgw_${'Z'.repeat(40)}` });
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('400 invalid_request for an unknown query parameter (native envelope)', async () => {
    const response = await call(h.baseUrl, 'GET', '/docs?url=https://example.com/other.json');
    expectNativeError(response, 400, 'invalid_request');
    expect(response.body.data.meta.fields[0].loc).toEqual(['query', 'url']);
  });

  it('403: the python-requests default User-Agent is refused at the edge (SPEC 5.5)', async () => {
    const response = await call(h.baseUrl, 'GET', '/docs', { headers: { 'user-agent': 'python-requests/2.32.3' } });
    expect(response.status).toBe(403);
  });
});
