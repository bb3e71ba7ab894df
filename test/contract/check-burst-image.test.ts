/** POST /v1/burst/orders/image-check: a Docker image's size from its registry, against the disk asked for. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeRegistry, startFakeRegistry } from '../fixtures/fake-registry.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
let registry: FakeRegistry;
let key: string;
beforeAll(async () => {
  registry = await startFakeRegistry();
  h = await startHarness({ MEDIA_FETCH_ALLOW: '127.0.0.1' });
  key = (await h.newAccount()).apiKey;
});
afterAll(async () => {
  await h.close();
  await registry.close();
});

const check = (body: Record<string, unknown>) => call(h.baseUrl, 'POST', '/v1/burst/orders/image-check', { key, body });

describe('POST /v1/burst/orders/image-check', () => {
  it('reads the linux/amd64 manifest of a multi-platform image (through the registry’s token) and says whether it fits', async () => {
    const { multiAmd64 } = registry.facts;
    const answer = expectNativeOk(await check({ docker_image: `${registry.host}/team/multi:1.0`, disk_gb: 20 }));
    expect(answer).toEqual({
      docker_image: `${registry.host}/team/multi:1.0`,
      digest: multiAmd64.digest,
      layers: multiAmd64.layers,
      compressed_bytes: multiAmd64.compressedBytes,
      estimated_disk_gb: expect.any(Number),
      disk_gb: 20,
      fits: true,
    });
    expect(answer.estimated_disk_gb).toBeCloseTo((multiAmd64.compressedBytes * 2.5) / 1024 ** 3, 2);
  });

  it('400 invalid_request naming docker_image for a missing or private image, a bad reference, a private registry not allowed', async () => {
    for (const image of [
      `${registry.host}/team/absent:1`,
      `${registry.host}/team/private:1`,
      'ubuntu:not a tag',
      '10.0.0.1:5000/team/app:1',
    ]) {
      const response = await check({ docker_image: image });
      expectNativeError(response, 400, 'invalid_request');
      expect(JSON.stringify(response.body.data)).toContain('docker_image');
    }
    expectNativeError(await check({ docker_image: 'ubuntu', disk_gb: 2000 }), 400, 'invalid_request');
  });

  it('400 naming docker_image, never a 500, for a registry naming a hostile digest or a registry no URL can name', async () => {
    const images = ['md5', 'path', 'proto'].map((tag) => `${registry.host}/team/hostile:${tag}`);
    for (const image of [
      ...images,
      '[:::::]:5000/team/app:1',
      'example.com:99999/team/app:1',
      `ubuntu@constructor:${'a'.repeat(64)}`,
    ]) {
      const response = await check({ docker_image: image });
      expectNativeError(response, 400, 'invalid_request');
      expect(JSON.stringify(response.body.data)).toContain('docker_image');
    }
  });
});
