/**
 * The image-registry conformance suite on the in-memory twin and on the OCI adapter against the fake registry
 * (test/fixtures/fake-registry.ts), then what only the adapter does: platforms of a multi-arch image, the anonymous
 * token dance, Docker formats, nested indexes, every failure kind from the wire (404 codes, 401 after a token, 500,
 * a timeout, a closed port, retired and foreign media types, an oversized or tampered manifest), and the address
 * policy applied to the registry and its token realm (SSRF).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryImageRegistry } from '../../src/adapters/image-registry/memory.js';
import { OciImageRegistry, type OciImageRegistryOptions } from '../../src/adapters/image-registry/oci-registry.js';
import { AddressPolicy } from '../../src/lib/address-policy.js';
import {
  DOCKER_LIST,
  DOCKER_MANIFEST,
  type FakeRegistry,
  fakeRegistryFacts,
  OCI_INDEX,
  OCI_MANIFEST,
  startFakeRegistry,
} from '../fixtures/fake-registry.js';
import { closedPortUrl } from '../fixtures/fake-upstream.js';
import { expectImageFailure, imageRegistryConformance } from './image-registry.conformance.js';

/** The fake listens on loopback, which the default policy refuses: the tests allow-list it. */
const adapter = (options: OciImageRegistryOptions = {}) =>
  new OciImageRegistry({ policy: AddressPolicy.parse('127.0.0.1'), ...options });

imageRegistryConformance('in memory', async () => {
  const facts = fakeRegistryFacts();
  const host = 'registry.test:5000';
  return {
    registry: new MemoryImageRegistry([
      [`${host}/team/multi:1.0`, facts.multiAmd64],
      [`${host}/team/multi@${facts.multiIndexDigest}`, facts.multiAmd64],
      [`${host}/team/private:1`, 'unauthorized'],
      [`${host}/team/armonly:1`, 'unsupported'],
    ]),
    host,
    amd64: facts.multiAmd64,
    indexDigest: facts.multiIndexDigest,
    cleanup: async () => {},
  };
});

imageRegistryConformance('OCI distribution API, fake registry on loopback', async () => {
  const fake = await startFakeRegistry();
  return {
    registry: adapter(),
    host: fake.host,
    amd64: fake.facts.multiAmd64,
    indexDigest: fake.facts.multiIndexDigest,
    cleanup: () => fake.close(),
  };
});

describe('OCI adapter against the fake registry', () => {
  let fake: FakeRegistry;
  const registry = adapter();
  beforeAll(async () => {
    fake = await startFakeRegistry();
  });
  afterAll(async () => {
    await registry.close();
    await fake.close();
  });
  /** The requests one check made. */
  const during = async <T>(check: () => Promise<T>) => {
    const from = fake.requests.length;
    const result = await check();
    return { result, requests: fake.requests.slice(from) };
  };

  it('a multi-arch image: linux/amd64 by default, another platform when asked', async () => {
    const amd64 = await registry.imageSize(`${fake.host}/team/multi:1.0`);
    expect(amd64).toMatchObject({
      digest: fake.facts.multiAmd64.digest,
      compressedBytes: fake.facts.multiAmd64.compressedBytes,
      layers: 3,
    });
    expect(amd64.compressedBytes).toBe(7_337 + 29_754_290 + 118_422_016 + 2_104);
    expect(amd64.estimatedDiskBytes).toBe(Math.ceil(amd64.compressedBytes * 2.5));
    const arm64 = await registry.imageSize(`${fake.host}/team/multi:1.0`, {
      platform: { os: 'linux', architecture: 'arm64' },
    });
    expect(arm64).toMatchObject({
      digest: fake.facts.multiArm64.digest,
      compressedBytes: 7_351 + 28_861_712 + 117_009_411,
      layers: 2,
    });
    const none = await expectImageFailure(
      registry.imageSize(`${fake.host}/team/multi:1.0`, { platform: { os: 'windows', architecture: 'amd64' } }),
      'unsupported',
    );
    expect(none.message).toMatch(/windows\/amd64.*linux\/amd64, linux\/arm64/);
  });

  it('the token dance: 401 with a Bearer challenge, one anonymous token from the realm, then every fetch with it', async () => {
    const { requests } = await during(() => registry.imageSize(`${fake.host}/team/multi:1.0`));
    expect(requests.map((r) => `${r.path} ${r.headers.authorization ?? '-'}`)).toEqual([
      '/v2/team/multi/manifests/1.0 -',
      '/token -',
      expect.stringMatching(/^\/v2\/team\/multi\/manifests\/1\.0 Bearer tok-\d+$/),
      expect.stringMatching(new RegExp(`^/v2/team/multi/manifests/${fake.facts.multiAmd64.digest} Bearer tok-\\d+$`)),
    ]);
    expect(requests[1]!.query).toEqual({ service: 'fake-registry', scope: 'repository:team/multi:pull' });
    for (const type of [OCI_INDEX, DOCKER_LIST, OCI_MANIFEST, DOCKER_MANIFEST])
      expect(requests[0]!.headers.accept).toContain(type);
  });

  it('a registry that asks for no token is not sent to one; Docker v2 manifests and manifest lists', async () => {
    const { result, requests } = await during(() => registry.imageSize(`${fake.host}/open/plain`));
    expect(result).toMatchObject({
      reference: `${fake.host}/open/plain:latest`,
      digest: fake.facts.plain.digest,
      compressedBytes: 1_512 + 3_623_807 + 10_240,
      layers: 2,
    });
    expect(requests.map((r) => r.path)).toEqual(['/v2/open/plain/manifests/latest']);
    expect(await registry.imageSize(`${fake.host}/open/list:1`)).toMatchObject({
      compressedBytes: 1_512 + 3_623_807 + 10_240,
      layers: 2,
    });
  });

  it('an index inside an index is followed; one level more is unsupported', async () => {
    expect(await registry.imageSize(`${fake.host}/team/nested:1`)).toMatchObject({ compressedBytes: 1_100, layers: 1 });
    await expectImageFailure(registry.imageSize(`${fake.host}/team/deep:1`), 'unsupported');
  });

  it('not_found: an unknown tag (MANIFEST_UNKNOWN) or repository (NAME_UNKNOWN), with the registry code in the message', async () => {
    expect((await expectImageFailure(registry.imageSize(`${fake.host}/team/multi:2.0`), 'not_found')).message).toMatch(
      /MANIFEST_UNKNOWN/,
    );
    expect((await expectImageFailure(registry.imageSize(`${fake.host}/team/nothing:1`), 'not_found')).message).toMatch(
      /NAME_UNKNOWN/,
    );
    await expectImageFailure(registry.imageSize(`${fake.host}/open/plain@sha256:${'0'.repeat(64)}`), 'not_found');
  });

  it('unauthorized: still 401 after the token dance (a private image), asked for a token once only', async () => {
    const { result, requests } = await during(() =>
      registry.imageSize(`${fake.host}/team/private:1`).catch((e: unknown) => e),
    );
    expect((result as { kind?: string }).kind).toBe('unauthorized');
    expect(requests.filter((r) => r.path === '/token')).toHaveLength(1);
  });

  it('unreachable: a 500, an answer slower than the timeout, a port nobody listens on', async () => {
    await expectImageFailure(registry.imageSize(`${fake.host}/team/broken:1`), 'unreachable');
    const impatient = adapter({ timeoutMs: 300 });
    expect((await expectImageFailure(impatient.imageSize(`${fake.host}/team/slow:1`), 'unreachable')).message).toMatch(
      /within 300 ms/,
    );
    await impatient.close();
    const closed = new URL(await closedPortUrl()).host;
    await expectImageFailure(registry.imageSize(`${closed}/team/app:1`), 'unreachable');
  });

  it('unreachable: a manifest whose bytes do not match the digest it was fetched by', async () => {
    expect(
      (await expectImageFailure(registry.imageSize(`${fake.host}/team/tampered:1`), 'unreachable')).message,
    ).toMatch(/do not match/);
  });

  it('unsupported: a schema 1 manifest, an OCI artifact that is not an image, an index without the platform, a manifest over the cap', async () => {
    await expectImageFailure(registry.imageSize(`${fake.host}/team/legacy:1`), 'unsupported');
    expect((await expectImageFailure(registry.imageSize(`${fake.host}/team/helm:1`), 'unsupported')).message).toMatch(
      /artifact/,
    );
    expect(
      (await expectImageFailure(registry.imageSize(`${fake.host}/team/armonly:1`), 'unsupported')).message,
    ).toMatch(/linux\/amd64.*linux\/arm64/);
    const small = adapter({ maxManifestBytes: 200 });
    expect((await expectImageFailure(small.imageSize(`${fake.host}/team/multi:1.0`), 'unsupported')).message).toMatch(
      /larger than 200 bytes/,
    );
    // Without Content-Length the cap is found while reading.
    expect(await registry.imageSize(`${fake.host}/team/chunked:1`)).toMatchObject({
      compressedBytes: 6_100,
      layers: 3,
    });
    await expectImageFailure(small.imageSize(`${fake.host}/team/chunked:1`), 'unsupported');
    await small.close();
  });

  it('unsupported: an index entry naming a malformed digest is neither hashed nor fetched', async () => {
    for (const tag of ['md5', 'path', 'proto']) {
      const { result, requests } = await during(() =>
        expectImageFailure(registry.imageSize(`${fake.host}/team/hostile:${tag}`), 'unsupported'),
      );
      expect(result.message).toMatch(/malformed digest/);
      // The tag only (asked twice: before and after the token dance), never the digest the index named.
      expect(new Set(requests.map((r) => r.path).filter((path) => path.startsWith('/v2/')))).toEqual(
        new Set([`/v2/team/hostile/manifests/${tag}`]),
      );
    }
  });

  it('invalid_reference: refused before anything is sent', async () => {
    const { requests } = await during(() =>
      expectImageFailure(registry.imageSize(`${fake.host}/Team/multi:1.0`), 'invalid_reference'),
    );
    expect(requests).toEqual([]);
  });

  it("a caller's abort mid-check rejects with the caller's reason", async () => {
    const controller = new AbortController();
    const reason = new Error('client went away');
    const check = registry.imageSize(`${fake.host}/team/slow:1`, { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 50);
    await expect(check).rejects.toBe(reason);
  });
});

describe('OCI adapter: the address policy (the reference is user input)', () => {
  let fake: FakeRegistry;
  let realmElsewhere: FakeRegistry;
  beforeAll(async () => {
    fake = await startFakeRegistry();
    // A registry whose token realm is on 127.0.0.2, which the policy below does not allow.
    realmElsewhere = await startFakeRegistry({ realm: 'http://127.0.0.2:9/token' });
  });
  afterAll(async () => {
    await fake.close();
    await realmElsewhere.close();
  });

  it('loopback is refused unless allow-listed, and nothing reaches it', async () => {
    const strict = new OciImageRegistry();
    const from = fake.requests.length;
    await expectImageFailure(strict.imageSize(`${fake.host}/open/plain`), 'blocked_address');
    await expectImageFailure(strict.imageSize(`localhost:${fake.host.split(':')[1]}/open/plain`), 'blocked_address');
    expect(fake.requests.length).toBe(from);
    await strict.close();
  });

  it('private, link-local (cloud metadata) and unique-local registries, before any connection', async () => {
    const registry = adapter();
    for (const host of ['10.0.0.1:5000', '192.168.1.1', '169.254.169.254', '[fd00::1]:5000', '[::ffff:7f00:2]:5000']) {
      await expectImageFailure(registry.imageSize(`${host}/team/app:1`), 'blocked_address');
    }
    await registry.close();
  });

  it('a token realm on a refused address is not fetched', async () => {
    const registry = adapter();
    await expectImageFailure(registry.imageSize(`${realmElsewhere.host}/team/multi:1.0`), 'blocked_address');
    await registry.close();
  });

  it('options are checked at construction', () => {
    expect(() => new OciImageRegistry({ timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => new OciImageRegistry({ unpackFactor: Number.NaN })).toThrow(/unpackFactor/);
  });
});
