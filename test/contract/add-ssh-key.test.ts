/** POST /v1/settings/ssh-keys: an OpenSSH public key for the caller's rentals, fingerprinted as ssh-keygen does. */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { sshPublicKey } from '../setup/market.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('POST /v1/settings/ssh-keys', () => {
  it('201: the key with its SHA256 fingerprint and its comment as name; the same key again answers it unchanged', async () => {
    const { apiKey } = await h.newAccount();
    const line = sshPublicKey('me@laptop');
    const fingerprint = `SHA256:${createHash('sha256')
      .update(Buffer.from(line.split(' ')[1]!, 'base64'))
      .digest('base64')
      .replace(/=+$/, '')}`;
    const added = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/settings/ssh-keys', { key: apiKey, body: { public_key: `  ${line}\n` } }),
      201,
    );
    expect(added).toEqual({
      key_id: expect.stringMatching(/^sshk_/),
      name: 'me@laptop',
      public_key: line,
      fingerprint,
      created_at: expect.any(Number),
    });
    const again = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/settings/ssh-keys', {
        key: apiKey,
        body: { public_key: line, name: 'other' },
      }),
      201,
    );
    expect(again).toEqual(added);
  });

  it('400 naming public_key for what is not an OpenSSH public key', async () => {
    const { apiKey } = await h.newAccount();
    const line = sshPublicKey();
    for (const publicKey of [
      '-----BEGIN OPENSSH PRIVATE KEY-----',
      'SHA256:abc',
      `ssh-rsa ${line.split(' ')[1]}`,
      'ssh-ed25519 not*base64',
      'ssh-dss AAAAB3NzaC1kc3M=',
    ]) {
      const response = await call(h.baseUrl, 'POST', '/v1/settings/ssh-keys', {
        key: apiKey,
        body: { public_key: publicKey },
      });
      expectNativeError(response, 400, 'invalid_request');
      expect(JSON.stringify(response.body.data)).toContain('public_key');
    }
    expectNativeError(
      await call(h.baseUrl, 'POST', '/v1/settings/ssh-keys', { body: { public_key: line } }),
      401,
      'authentication_required',
    );
  });
});
