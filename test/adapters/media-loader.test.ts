/**
 * The media-loader conformance suite on the in-memory twin and on the SSRF-safe loader, then what only the safe
 * loader does (SPEC issue 9 acceptance): loopback, private ranges, IPv4-mapped IPv6, decimal and hex IP forms,
 * a name that resolves to loopback, and a redirect to loopback are all refused; an allow-listed address is not;
 * redirects are followed up to the limit; a slow link times out.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryMediaLoader } from '../../src/adapters/media-fetch/memory.js';
import { SafeMediaLoader } from '../../src/adapters/media-fetch/safe-loader.js';
import { AddressPolicy } from '../../src/lib/address-policy.js';
import {
  BIG_BYTES,
  expectLoadFailure,
  MAX_BYTES,
  mediaLoaderConformance,
  PNG_BYTES,
} from './media-loader.conformance.js';

/** A media server on `host`: /a.png, /big, /slow, /to?url=<location> (302), anything else 404. */
async function mediaServer(host: string): Promise<{ server: Server; origin: string }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/a.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(PNG_BYTES);
    if (url.pathname === '/big')
      return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(BIG_BYTES);
    if (url.pathname === '/slow') return void setTimeout(() => res.writeHead(200).end('late'), 2_000).unref();
    if (url.pathname === '/to') return void res.writeHead(302, { location: url.searchParams.get('url') ?? '/' }).end();
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, host, () => resolve()));
  return { server, origin: `http://${host}:${(server.address() as AddressInfo).port}` };
}

const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));
const safeLoader = (allow: string, timeoutMs = 5_000) =>
  new SafeMediaLoader({ policy: AddressPolicy.parse(allow), maxBytes: MAX_BYTES, timeoutMs, maxRedirects: 3 });

mediaLoaderConformance('in memory', async () => ({
  loader: new MemoryMediaLoader(
    new Map([
      ['https://media.test/a.png', { bytes: PNG_BYTES, declaredType: 'image/png' }],
      ['https://media.test/big', { bytes: BIG_BYTES, declaredType: null }],
    ]),
    MAX_BYTES,
  ),
  pngUrl: 'https://media.test/a.png',
  bigUrl: 'https://media.test/big',
  missingUrl: 'https://media.test/none',
  cleanup: async () => {},
}));

mediaLoaderConformance('SSRF-safe, loopback allow-listed', async () => {
  const { server, origin } = await mediaServer('127.0.0.1');
  return {
    loader: safeLoader('127.0.0.1'),
    pngUrl: `${origin}/a.png`,
    bigUrl: `${origin}/big`,
    missingUrl: `${origin}/none`,
    cleanup: () => close(server),
  };
});

describe('SSRF-safe loader: what it refuses', () => {
  let loopback: { server: Server; origin: string };
  /** 127.0.0.2 stands for an allowed asset host: it redirects to the refused 127.0.0.1. */
  let allowedHop: { server: Server; origin: string };
  const loader = safeLoader('127.0.0.2/32');
  beforeAll(async () => {
    loopback = await mediaServer('127.0.0.1');
    allowedHop = await mediaServer('127.0.0.2');
  });
  afterAll(async () => {
    await loader.close();
    await close(loopback.server);
    await close(allowedHop.server);
  });

  const port = () => new URL(loopback.origin).port;

  it('loopback in every spelling: 127.0.0.1, localhost, [::ffff:127.0.0.1], decimal 2130706433, hex 0x7f.1, [::1]', async () => {
    for (const host of ['127.0.0.1', 'localhost', '[::ffff:127.0.0.1]', '2130706433', '0x7f.1', '[::1]']) {
      await expectLoadFailure(loader.load(`http://${host}:${port()}/a.png`), 'blocked_address');
    }
  });

  it('private, link-local (cloud metadata), carrier NAT, unique-local and unspecified addresses, before any connection', async () => {
    for (const host of [
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '[fd00:ec2::254]',
      '[fe80::1]',
      '0.0.0.0',
    ]) {
      await expectLoadFailure(loader.load(`http://${host}/latest/meta-data/`), 'blocked_address');
    }
  });

  it('a redirect from an allowed host to loopback', async () => {
    expect((await loader.load(`${allowedHop.origin}/a.png`)).bytes.equals(PNG_BYTES)).toBe(true); // the hop itself is fine
    await expectLoadFailure(
      loader.load(`${allowedHop.origin}/to?url=${encodeURIComponent(`${loopback.origin}/a.png`)}`),
      'blocked_address',
    );
    // A probe follows the same rules as a load.
    await expectLoadFailure(
      loader.probe(`${allowedHop.origin}/to?url=${encodeURIComponent(`${loopback.origin}/a.png`)}`, 16),
      'blocked_address',
    );
    await expectLoadFailure(loader.probe(`${loopback.origin}/a.png`, 16), 'blocked_address');
  });

  it('redirects are followed up to the limit, and only to http(s)', async () => {
    const hop = (to: string) => `${allowedHop.origin}/to?url=${encodeURIComponent(to)}`;
    expect((await loader.load(hop(hop(`${allowedHop.origin}/a.png`)))).bytes.equals(PNG_BYTES)).toBe(true);
    await expectLoadFailure(loader.load(hop(hop(hop(hop(`${allowedHop.origin}/a.png`))))), 'unreachable');
    await expectLoadFailure(loader.load(hop('file:///etc/passwd')), 'unreachable');
  });

  it('a link slower than the time cap → timeout', async () => {
    const impatient = safeLoader('127.0.0.2/32', 300);
    await expectLoadFailure(impatient.load(`${allowedHop.origin}/slow`), 'timeout');
    await impatient.close();
  });
});

describe('AddressPolicy', () => {
  it('public unicast is permitted; allow-listed ranges too; IPv4-mapped IPv6 is judged as IPv4', () => {
    const policy = AddressPolicy.parse('10.0.0.0/8, 127.0.0.1');
    expect(policy.permits('93.184.216.34')).toBe(true);
    expect(policy.permits('2606:2800:220:1:248:1893:25c8:1946')).toBe(true);
    expect(policy.permits('10.20.30.40')).toBe(true);
    expect(policy.permits('127.0.0.1')).toBe(true);
    expect(policy.permits('::ffff:127.0.0.1')).toBe(true);
    expect(policy.permits('127.0.0.2')).toBe(false);
    expect(policy.permits('192.168.0.1')).toBe(false);
    expect(policy.permits('::ffff:192.168.0.1')).toBe(false);
    expect(policy.permits('::7f00:1')).toBe(false); // IPv4-compatible IPv6, whatever it carries
    expect(policy.permits('::5db8:d822')).toBe(false);
    expect(policy.permits('not an address')).toBe(false);
  });
});
