/** DELETE /v1/settings/ssh-keys/{key_id}: removes one of the caller's keys; anybody else's is 404 ssh_key_not_found. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { sshPublicKey } from '../setup/market.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('DELETE /v1/settings/ssh-keys/{key_id}', () => {
  it('removes the key; again, or by another account, is 404 ssh_key_not_found', async () => {
    const owner = await h.newAccount();
    const added = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/settings/ssh-keys', {
        key: owner.apiKey,
        body: { public_key: sshPublicKey() },
      }),
      201,
    );
    const path = `/v1/settings/ssh-keys/${added.key_id}`;
    expectNativeError(
      await call(h.baseUrl, 'DELETE', path, { key: (await h.newAccount()).apiKey }),
      404,
      'ssh_key_not_found',
    );
    expect(expectNativeOk(await call(h.baseUrl, 'DELETE', path, { key: owner.apiKey }))).toEqual({ deleted: true });
    expect(expectNativeOk(await call(h.baseUrl, 'GET', '/v1/settings/ssh-keys', { key: owner.apiKey })).keys).toEqual(
      [],
    );
    expectNativeError(await call(h.baseUrl, 'DELETE', path, { key: owner.apiKey }), 404, 'ssh_key_not_found');
  });
});
