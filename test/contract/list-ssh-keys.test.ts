/** GET /v1/settings/ssh-keys: the caller's keys, oldest first, and no one else's. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { sshPublicKey } from '../setup/market.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('GET /v1/settings/ssh-keys', () => {
  it('lists the caller’s keys in the order added', async () => {
    const { apiKey } = await h.newAccount();
    const names = [];
    for (const name of ['laptop', 'desktop']) {
      names.push(
        expectNativeOk(
          await call(h.baseUrl, 'POST', '/v1/settings/ssh-keys', {
            key: apiKey,
            body: { public_key: sshPublicKey(), name },
          }),
          201,
        ).name,
      );
    }
    expect(
      expectNativeOk(await call(h.baseUrl, 'GET', '/v1/settings/ssh-keys', { key: apiKey })).keys.map(
        (k: { name: string }) => k.name,
      ),
    ).toEqual(names);
    expect(
      expectNativeOk(await call(h.baseUrl, 'GET', '/v1/settings/ssh-keys', { key: (await h.newAccount()).apiKey }))
        .keys,
    ).toEqual([]);
    expectNativeError(await call(h.baseUrl, 'GET', '/v1/settings/ssh-keys'), 401, 'authentication_required');
  });
});
