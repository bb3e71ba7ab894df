import { describe, expect, it, vi } from 'vitest';
import type { ApiKeyStore } from '../../src/adapters/api-keys/index.js';
import { MemoryApiKeyStore } from '../../src/adapters/api-keys/memory.js';
import {
  createAccount,
  deleteAccount,
  issueKey,
  lockAccount,
  revokeKey,
  setDiscounts,
  unlockAccount,
} from '../../src/domain/accounts/accounts.js';
import { hashApiKey } from '../../src/domain/keys/api-key-secret.js';
import { AuthFailures } from '../../src/domain/keys/auth-failures.js';
import { Authenticator } from '../../src/domain/keys/authenticator.js';
import { KeyUsageRecorder } from '../../src/domain/keys/key-usage-recorder.js';
import { ApiError } from '../../src/errors/api-error.js';
import type { ErrorCode } from '../../src/errors/catalog.js';

const T0 = 1_700_000_000_000;
const TTL_MS = 30_000;

/** A memory store whose resolveKey calls are counted. */
class CountingStore extends MemoryApiKeyStore {
  resolveCalls = 0;
  override async resolveKey(hash: string) {
    this.resolveCalls += 1;
    return super.resolveKey(hash);
  }
}

interface Setup {
  store: CountingStore;
  clock: { now: number };
  usage: KeyUsageRecorder;
  auth: Authenticator;
  accountId: string;
  keyId: string;
  secret: string;
}

const FAILURE_LIMIT = 5;

async function setup(cacheTtlMs = TTL_MS): Promise<Setup> {
  const store = new CountingStore();
  const clock = { now: T0 };
  const now = () => clock.now;
  const usage = new KeyUsageRecorder(store, () => {});
  const failures = new AuthFailures({ limit: FAILURE_LIMIT, windowMs: 60_000, maxAddresses: 100, now });
  const auth = new Authenticator(store, usage, { cacheTtlMs, now, failures });
  const account = await createAccount(store, { email: 'ada@example.com' }, now);
  const { record, secret } = await issueKey(store, account.id, 'main', now);
  store.resolveCalls = 0;
  return { store, clock, usage, auth, accountId: account.id, keyId: record.id, secret };
}

async function failure(promise: Promise<unknown>): Promise<ErrorCode> {
  const err = await promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return (err as ApiError).code;
}

describe('Authenticator', () => {
  it('resolves a valid key to its account and key', async () => {
    const s = await setup();
    const principal = await s.auth.authenticate(s.secret);
    expect(principal.accountId).toBe(s.accountId);
    expect(principal.keyId).toBe(s.keyId);
    expect(principal.account).toEqual({
      id: s.accountId,
      email: 'ada@example.com',
      createdAtMs: T0,
      discountPercent: 0,
      tierDiscounts: {},
      rateLimitPerMinute: null,
      rubBilling: false,
      lockedAtMs: null,
      lockReason: null,
      debtMicros: 0n,
    });
    expect(principal.keyRateLimitPerMinute).toBeNull();
  });

  it.each([
    '',
    'not-a-key',
    'Bearer cgw_0123456789012345678901234567890123456789',
    'cgw_012345678901234567890123456789012345678', // 39 characters
    'cgw_01234567890123456789012345678901234567890', // 41 characters
    'cgx_0123456789012345678901234567890123456789',
    'cgw_012345678901234567890123456789012345678-',
    ' cgw_0123456789012345678901234567890123456789',
  ])('malformed %j → invalid_api_key without touching the store', async (presented) => {
    const s = await setup();
    expect(await failure(s.auth.authenticate(presented))).toBe('invalid_api_key');
    expect(s.store.resolveCalls).toBe(0);
  });

  it('a well-formed unknown key → invalid_api_key, and the miss is cached like a find: one lookup within the TTL', async () => {
    const s = await setup();
    const unknown = `cgw_${'a'.repeat(40)}`;
    expect(await failure(s.auth.authenticate(unknown))).toBe('invalid_api_key');
    expect(await failure(s.auth.authenticate(unknown))).toBe('invalid_api_key');
    expect(s.store.resolveCalls).toBe(1);
    s.clock.now += TTL_MS;
    expect(await failure(s.auth.authenticate(unknown))).toBe('invalid_api_key');
    expect(s.store.resolveCalls).toBe(2);
  });

  it('a flood of unknown keys (from many addresses) never pushes a found key out of the cache', async () => {
    const s = await setup();
    await s.auth.authenticate(s.secret);
    for (let i = 0; i < 10_001; i++)
      await failure(s.auth.authenticate(`cgw_${String(i).padStart(40, 'z')}`, `10.0.${i >> 8}.${i & 255}`));
    const lookups = s.store.resolveCalls;
    expect((await s.auth.authenticate(s.secret)).keyId).toBe(s.keyId);
    expect(s.store.resolveCalls).toBe(lookups);
  });

  it('a key that did not exist when it was first presented is found once the TTL has passed', async () => {
    const s = await setup();
    const chosen = `cgw_${'B'.repeat(40)}`;
    expect(await failure(s.auth.authenticate(chosen))).toBe('invalid_api_key');
    await s.store.createKey({
      id: 'key_chosen',
      accountId: s.accountId,
      name: 'chosen',
      hash: hashApiKey(chosen),
      displayHint: 'x',
      createdAtMs: T0,
      managesKeys: false,
    });
    s.clock.now += TTL_MS;
    expect((await s.auth.authenticate(chosen)).keyId).toBe('key_chosen');
    expect(s.store.resolveCalls).toBe(2);
  });

  it('an address that presents too many unknown keys waits (429 auth_rate_limited, Retry-After) without a lookup; others do not', async () => {
    const s = await setup();
    await s.auth.authenticate(s.secret, '10.0.0.1'); // cached: still usable from the throttled address
    const random = (i: number) => `cgw_${String(i).padStart(40, 'x')}`;
    for (let i = 0; i < FAILURE_LIMIT; i++)
      expect(await failure(s.auth.authenticate(random(i), '10.0.0.1'))).toBe('invalid_api_key');
    const lookups = s.store.resolveCalls;
    s.clock.now += 10_000;
    const refused = await s.auth.authenticate(random(99), '10.0.0.1').then(
      () => null,
      (e: unknown) => e as ApiError,
    );
    expect(refused).toMatchObject({ code: 'auth_rate_limited', status: 429, headers: { 'Retry-After': '50' } });
    expect(s.store.resolveCalls).toBe(lookups);
    expect((await s.auth.authenticate(s.secret, '10.0.0.1')).keyId).toBe(s.keyId);
    expect(await failure(s.auth.authenticate(random(100), '10.0.0.2'))).toBe('invalid_api_key');
    // Malformed keys count too (they never reach the store, but they are what a scanner sends).
    for (let i = 0; i < FAILURE_LIMIT; i++) await failure(s.auth.authenticate('not-a-key', '10.0.0.3'));
    expect(await failure(s.auth.authenticate(random(101), '10.0.0.3'))).toBe('auth_rate_limited');
    s.clock.now += 50_000;
    expect(await failure(s.auth.authenticate(random(102), '10.0.0.1'))).toBe('invalid_api_key');
  });

  it('a key issued after the authenticator cached another one works at once', async () => {
    const s = await setup();
    await s.auth.authenticate(s.secret);
    const { record, secret } = await issueKey(s.store, s.accountId, 'second', () => s.clock.now);
    expect((await s.auth.authenticate(secret)).keyId).toBe(record.id);
  });

  it('a revoked key → api_key_revoked', async () => {
    const s = await setup();
    await revokeKey(s.store, s.accountId, s.keyId, () => s.clock.now);
    expect(await failure(s.auth.authenticate(s.secret))).toBe('api_key_revoked');
  });

  it('a key whose account was deleted → user_not_found', async () => {
    const s = await setup();
    await deleteAccount(s.store, s.accountId);
    expect(await failure(s.auth.authenticate(s.secret))).toBe('user_not_found');
  });

  it('a revoked key of a deleted account → api_key_revoked (revocation is checked first)', async () => {
    const s = await setup();
    await revokeKey(s.store, null, s.keyId, () => s.clock.now);
    await deleteAccount(s.store, s.accountId);
    expect(await failure(s.auth.authenticate(s.secret))).toBe('api_key_revoked');
  });

  it("a locked account's keys answer 403 account_locked, at once after invalidate, within the TTL elsewhere", async () => {
    const s = await setup();
    await s.auth.authenticate(s.secret); // cached until T0 + TTL
    await lockAccount(s.store, s.accountId, 'chargeback', () => s.clock.now);
    // Another process that cached the key sees the lock once its cache entry expires, as for a revocation.
    expect((await s.auth.authenticate(s.secret)).accountId).toBe(s.accountId);
    s.auth.invalidate({ accountId: s.accountId });
    expect(await failure(s.auth.authenticate(s.secret))).toBe('account_locked');
    const second = await issueKey(s.store, s.accountId, 'second', () => s.clock.now);
    expect(await failure(s.auth.authenticate(second.secret))).toBe('account_locked');
    await unlockAccount(s.store, s.accountId);
    s.clock.now = T0 + TTL_MS;
    expect((await s.auth.authenticate(s.secret)).accountId).toBe(s.accountId);
  });

  it('a revoked key of a locked account → api_key_revoked (revocation is checked first)', async () => {
    const s = await setup();
    await revokeKey(s.store, null, s.keyId, () => s.clock.now);
    await lockAccount(s.store, s.accountId, 'abuse', () => s.clock.now);
    expect(await failure(s.auth.authenticate(s.secret))).toBe('api_key_revoked');
  });

  it('caches a found key: one store lookup within the TTL', async () => {
    const s = await setup();
    for (let i = 0; i < 5; i++) {
      s.clock.now = T0 + i * 1_000;
      await s.auth.authenticate(s.secret);
    }
    expect(s.store.resolveCalls).toBe(1);
  });

  it('a revocation made directly in the store is not seen before the TTL expires, and is seen after', async () => {
    const s = await setup();
    await s.auth.authenticate(s.secret); // cached until T0 + TTL
    await s.store.revokeKey(s.keyId, T0 + 1);
    s.clock.now = T0 + TTL_MS - 1;
    expect((await s.auth.authenticate(s.secret)).keyId).toBe(s.keyId);
    expect(s.store.resolveCalls).toBe(1);
    s.clock.now = T0 + TTL_MS;
    expect(await failure(s.auth.authenticate(s.secret))).toBe('api_key_revoked');
    expect(s.store.resolveCalls).toBe(2);
  });

  it('a deletion made directly in the store is seen after the TTL', async () => {
    const s = await setup();
    await s.auth.authenticate(s.secret);
    await s.store.deleteAccount(s.accountId);
    expect((await s.auth.authenticate(s.secret)).accountId).toBe(s.accountId);
    s.clock.now = T0 + TTL_MS + 5;
    expect(await failure(s.auth.authenticate(s.secret))).toBe('user_not_found');
  });

  it('invalidate({keyId}) drops that key at once, and only that key', async () => {
    const s = await setup();
    const other = await issueKey(s.store, s.accountId, 'other', () => s.clock.now);
    await s.auth.authenticate(s.secret);
    await s.auth.authenticate(other.secret);
    expect(s.store.resolveCalls).toBe(2);
    await s.store.revokeKey(s.keyId, T0);
    s.auth.invalidate({ keyId: s.keyId });
    expect(await failure(s.auth.authenticate(s.secret))).toBe('api_key_revoked');
    expect(s.store.resolveCalls).toBe(3);
    await s.auth.authenticate(other.secret); // still cached
    expect(s.store.resolveCalls).toBe(3);
  });

  it('invalidate({accountId}) drops every key of that account, and only of that account', async () => {
    const s = await setup();
    const second = await issueKey(s.store, s.accountId, 'second', () => s.clock.now);
    const stranger = await createAccount(s.store, { email: 'bob@example.com' }, () => s.clock.now);
    const strangerKey = await issueKey(s.store, stranger.id, 'b', () => s.clock.now);
    for (const secret of [s.secret, second.secret, strangerKey.secret]) await s.auth.authenticate(secret);
    expect(s.store.resolveCalls).toBe(3);

    await setDiscounts(s.store, s.accountId, { discountPercent: 10, tierDiscounts: { '4K': 25 } });
    expect((await s.auth.authenticate(s.secret)).account.discountPercent).toBe(0); // stale, as designed
    s.auth.invalidate({ accountId: s.accountId });
    expect((await s.auth.authenticate(s.secret)).account).toMatchObject({
      discountPercent: 10,
      tierDiscounts: { '4K': 25 },
    });
    expect((await s.auth.authenticate(second.secret)).account.discountPercent).toBe(10);
    expect(s.store.resolveCalls).toBe(5);
    await s.auth.authenticate(strangerKey.secret);
    expect(s.store.resolveCalls).toBe(5);
  });

  it('invalidate with an id nobody has, or with nothing, drops nothing', async () => {
    const s = await setup();
    await s.auth.authenticate(s.secret);
    s.auth.invalidate({ keyId: 'key_nobody' });
    s.auth.invalidate({ accountId: 'acc_nobody' });
    s.auth.invalidate({});
    await s.auth.authenticate(s.secret);
    expect(s.store.resolveCalls).toBe(1);
  });

  it('ttl 0 never caches: every call asks the store and sees a revocation at once', async () => {
    const s = await setup(0);
    await s.auth.authenticate(s.secret);
    await s.auth.authenticate(s.secret);
    expect(s.store.resolveCalls).toBe(2);
    await s.store.revokeKey(s.keyId, T0);
    expect(await failure(s.auth.authenticate(s.secret))).toBe('api_key_revoked');
    expect(s.store.resolveCalls).toBe(3);
  });

  it('records the use of the key at the clock time, written on flush', async () => {
    const s = await setup();
    s.clock.now = T0 + 42;
    await s.auth.authenticate(s.secret);
    expect((await s.store.getKey(s.keyId))?.lastUsedAtMs).toBeNull(); // nothing written on the request path
    await s.usage.flush();
    expect((await s.store.getKey(s.keyId))?.lastUsedAtMs).toBe(T0 + 42);
  });

  it('does not record a use when authentication fails', async () => {
    const s = await setup();
    await s.store.revokeKey(s.keyId, T0);
    await failure(s.auth.authenticate(s.secret));
    await s.usage.flush();
    expect((await s.store.getKey(s.keyId))?.lastUsedAtMs).toBeNull();
  });
});

/** A store stub that only knows touchKeys; everything else is unused by the recorder. */
function touchOnlyStore(touchKeys: (lastUsed: ReadonlyMap<string, number>) => Promise<void>): ApiKeyStore {
  return { touchKeys } as unknown as ApiKeyStore;
}

describe('KeyUsageRecorder', () => {
  it('keeps the newest time per key and writes one batch per flush', async () => {
    const batches: Map<string, number>[] = [];
    const recorder = new KeyUsageRecorder(
      touchOnlyStore(async (lastUsed) => {
        batches.push(new Map(lastUsed));
      }),
      () => {},
    );
    recorder.record('key_a', 10);
    recorder.record('key_a', 30);
    recorder.record('key_a', 20); // older than what is pending: ignored
    recorder.record('key_b', 5);
    await recorder.flush();
    expect(batches).toEqual([
      new Map([
        ['key_a', 30],
        ['key_b', 5],
      ]),
    ]);
  });

  it('does not call the store when nothing is pending, and starts afresh after a flush', async () => {
    const touchKeys = vi.fn(async (_lastUsed: ReadonlyMap<string, number>) => {});
    const recorder = new KeyUsageRecorder(touchOnlyStore(touchKeys), () => {});
    await recorder.flush();
    expect(touchKeys).not.toHaveBeenCalled();
    recorder.record('key_a', 1);
    await recorder.flush();
    await recorder.flush();
    expect(touchKeys).toHaveBeenCalledTimes(1);
    recorder.record('key_b', 2);
    await recorder.flush();
    expect(touchKeys).toHaveBeenCalledTimes(2);
    expect([...(touchKeys.mock.calls[1]?.[0] ?? [])]).toEqual([['key_b', 2]]);
  });

  it('a failing store keeps the pending times for the next flush and reports the error', async () => {
    const boom = new Error('database down');
    const written: [string, number][][] = [];
    let fail = true;
    const onError = vi.fn();
    const recorder = new KeyUsageRecorder(
      touchOnlyStore(async (lastUsed) => {
        if (fail) throw boom;
        written.push([...lastUsed]);
      }),
      onError,
    );
    recorder.record('key_a', 10);
    recorder.record('key_b', 20);
    await recorder.flush();
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError).toHaveBeenCalledWith(boom);
    expect(written).toEqual([]);

    recorder.record('key_a', 15); // newer than the kept one
    recorder.record('key_b', 12); // older than the kept one
    fail = false;
    await recorder.flush();
    expect(written).toEqual([
      [
        ['key_a', 15],
        ['key_b', 20],
      ],
    ]);
    expect(onError).toHaveBeenCalledTimes(1);
  });

  it('a use recorded while a failing write is in flight is not lost nor set back', async () => {
    let reject: (err: unknown) => void = () => {};
    const calls: [string, number][][] = [];
    let first = true;
    const recorder = new KeyUsageRecorder(
      touchOnlyStore((lastUsed) => {
        calls.push([...lastUsed]);
        if (first) {
          first = false;
          return new Promise<void>((_resolve, r) => {
            reject = r;
          });
        }
        return Promise.resolve();
      }),
      () => {},
    );
    recorder.record('key_a', 10);
    const flushing = recorder.flush();
    recorder.record('key_a', 50);
    recorder.record('key_c', 7);
    reject(new Error('timeout'));
    await flushing;
    await recorder.flush();
    expect(calls).toEqual([
      [['key_a', 10]],
      [
        ['key_a', 50],
        ['key_c', 7],
      ],
    ]);
  });

  it('writes through the memory store: times only move forward', async () => {
    const store = new MemoryApiKeyStore();
    const account = await createAccount(store, { email: 'c@example.com' }, () => T0);
    const { record } = await issueKey(store, account.id, 'k', () => T0);
    const recorder = new KeyUsageRecorder(store, () => {});
    recorder.record(record.id, T0 + 100);
    await recorder.flush();
    recorder.record(record.id, T0 + 50);
    await recorder.flush();
    expect((await store.getKey(record.id))?.lastUsedAtMs).toBe(T0 + 100);
  });

  it('start() flushes on its interval and stop() flushes what is left', async () => {
    vi.useFakeTimers();
    try {
      const touchKeys = vi.fn(async (_lastUsed: ReadonlyMap<string, number>) => {});
      const recorder = new KeyUsageRecorder(touchOnlyStore(touchKeys), () => {});
      recorder.start(1_000);
      recorder.record('key_a', 1);
      await vi.advanceTimersByTimeAsync(999);
      expect(touchKeys).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(1);
      expect(touchKeys).toHaveBeenCalledTimes(1);
      recorder.record('key_b', 2);
      await recorder.stop();
      expect(touchKeys).toHaveBeenCalledTimes(2);
      expect([...(touchKeys.mock.calls[1]?.[0] ?? [])]).toEqual([['key_b', 2]]);
      recorder.record('key_c', 3);
      await vi.advanceTimersByTimeAsync(5_000); // the timer is gone
      expect(touchKeys).toHaveBeenCalledTimes(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
