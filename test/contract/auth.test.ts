/**
 * SPEC 5.4 for every operation whose contract requires a key, with both header styles (SPEC 5.1): the four
 * failures and a success. Operations are read from the contract, so a new protected operation is covered
 * the day it is added.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteAccount, revokeKey } from '../../src/domain/accounts.js';
import { envelopeForPath } from '../../src/errors/render.js';
import { call, startHarness, type Harness, type JsonResponse } from '../setup/harness.js';
import { expectCompatError, expectNativeError } from '../setup/envelopes.js';
import { protectedOperations } from '../setup/contract.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

function expectError(path: string, response: JsonResponse, status: number, code: string): void {
  if (envelopeForPath(path) === 'compat') expectCompatError(response, status, code);
  else expectNativeError(response, status, code);
}

const operations = protectedOperations();

describe.each(operations)('$method $path', ({ method, path, samplePath }) => {
  it('401 authentication_required with neither header', async () => {
    expectError(path, await call(h.baseUrl, method, samplePath), 401, 'authentication_required');
  });

  describe.each(['bearer', 'x-api-key'] as const)('with %s', (keyHeader) => {
    it('401 invalid_api_key for a malformed key and for an unknown well-formed one', async () => {
      expectError(path, await call(h.baseUrl, method, samplePath, { key: 'sk-something-else', keyHeader }), 401, 'invalid_api_key');
      expectError(path, await call(h.baseUrl, method, samplePath, { key: `cgw_${'Z'.repeat(40)}`, keyHeader }), 401, 'invalid_api_key');
    });

    it('401 api_key_revoked for a revoked key', async () => {
      const { apiKey, keyId } = await h.newAccount();
      await revokeKey(h.deps.apiKeys, null, keyId);
      expectError(path, await call(h.baseUrl, method, samplePath, { key: apiKey, keyHeader }), 401, 'api_key_revoked');
    });

    it('404 user_not_found once the account was hard-deleted', async () => {
      const { apiKey, accountId } = await h.newAccount();
      await deleteAccount(h.deps.apiKeys, accountId);
      expectError(path, await call(h.baseUrl, method, samplePath, { key: apiKey, keyHeader }), 404, 'user_not_found');
    });

    it('a valid key gets past authentication', async () => {
      const { apiKey } = await h.newAccount();
      const response = await call(h.baseUrl, method, samplePath, { key: apiKey, keyHeader });
      expect(response.status, response.text).not.toBe(401);
      expect(response.status).toBeLessThan(500);
    });
  });
});

it('covers at least the key-management and compat operations', () => {
  expect(operations.map((o) => o.operationId)).toEqual(expect.arrayContaining(['listCompatModels', 'listApiKeys', 'createApiKey', 'revokeApiKey']));
});
