/**
 * DESIGN 3 "Pre-flight" and 8 (budgets enforced under concurrency), through the whole gateway: 200 concurrent
 * chats from an account that affords exactly 50 pre-flight holds. Exactly 50 are served, 150 are refused with
 * 402 insufficient_balance, the balance never goes below 0, and the ledger's posted spend equals the sum of
 * the served completions' usage.cost to the micro-dollar. On the embedded SQLite default, and on PostgreSQL +
 * Redis (the scale-out configuration).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../fixtures/fake-upstream.js';
import { type PostgresSchema, postgresSchema, TEST_POSTGRES_URL } from '../setup/databases.js';
import { expectCompatError } from '../setup/envelopes.js';
import { type Harness, startHarness } from '../setup/harness.js';
import { micros } from '../setup/money.js';
import { sleep } from '../setup/time.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';
import { chat, money } from './gateway-helpers.js';

const MAX_TOKENS = 1000;
const CONCURRENT = 200;
const AFFORDABLE = 50;

const backends = [
  { name: 'SQLite', open: async () => ({ env: {}, drop: async () => undefined }) },
  {
    name: 'PostgreSQL + Redis',
    open: async () => {
      const pg: PostgresSchema = await postgresSchema();
      return {
        env: {
          DATABASE_URL: `${TEST_POSTGRES_URL}?options=-c%20search_path%3D${pg.schema}`,
          REDIS_URL: 'redis://127.0.0.1:6379',
        },
        drop: () => pg.drop(),
      };
    },
  },
];

afterAll(() => removeUpstreamsFiles());

describe.each(backends)('200 concurrent chats on $name', ({ open }) => {
  let fake: FakeUpstream;
  let h: Harness;
  let drop: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    // The upstream reports the whole max_tokens as output: each call costs a hair under its hold, so the
    // little a settle gives back can never add up to a 51st hold (asserted below), whatever the timing.
    fake = await startFakeUpstream({ usage: { promptTokens: 5, completionTokens: MAX_TOKENS } });
    const database = await open();
    drop = database.drop;
    const upstreams = writeUpstreamsFile({
      'gpt-5-mini': [{ provider: 'fake', url: fake.baseUrl, cost: { input: 0.1, output: 1 } }],
    });
    h = await startHarness({ UPSTREAMS_FILE: upstreams, ...database.env });
  });

  afterAll(async () => {
    await h?.close();
    await fake?.close();
    await drop();
  });

  async function unlimitedAccount(balanceUsd: number): Promise<{ accountId: string; apiKey: string }> {
    const account = await h.newAccount(undefined, { balanceUsd });
    // SPEC 8 rate limits (120/min per key) must not decide who gets served here: only the balance does.
    expect(await h.deps.apiKeys.setKeyRateLimit(account.keyId, 100_000)).toBe(true);
    expect(await h.deps.apiKeys.updateAccountSettings(account.accountId, { rateLimitPerMinute: 100_000 })).toBe(true);
    return account;
  }

  it('exactly 50 succeed, 150 get 402, the balance never goes below 0, posted spend = Σ usage.cost', async () => {
    // The hold of one such chat, as the gateway computes it (read from the ledger, not re-derived here).
    const probe = await unlimitedAccount(1);
    const calibration = await chat(h, probe.apiKey, { max_tokens: MAX_TOKENS });
    expect(calibration.status, calibration.text).toBe(200);
    const hold = (await h.deps.ledger.getHold(`hold:${calibration.headers.get('x-request-id')}`))!;
    const holdMicros = hold.amountMicros;
    const costMicros = micros(calibration.body.usage.cost);
    expect(costMicros).toBeLessThanOrEqual(holdMicros);
    expect(BigInt(AFFORDABLE) * (holdMicros - costMicros)).toBeLessThan(holdMicros); // see beforeAll

    const opening = BigInt(AFFORDABLE) * holdMicros;
    const { accountId, apiKey } = await unlimitedAccount(Number(opening) / 1e6);
    expect((await h.deps.ledger.getBalance(accountId)).availableMicros).toBe(opening);
    const upstreamBefore = fake.requests.length;

    // Sample the balance while the requests race.
    let racing = true;
    const samples: { availableMicros: bigint; heldMicros: bigint }[] = [];
    const sampler = (async () => {
      while (racing) {
        samples.push(await h.deps.ledger.getBalance(accountId));
        await sleep(5);
      }
    })();
    const responses = await Promise.all(
      Array.from({ length: CONCURRENT }, () => chat(h, apiKey, { max_tokens: MAX_TOKENS })),
    );
    racing = false;
    await sampler;

    const served = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status !== 200);
    expect(served).toHaveLength(AFFORDABLE);
    expect(refused).toHaveLength(CONCURRENT - AFFORDABLE);
    for (const response of refused) expectCompatError(response, 402, 'insufficient_balance');
    expect(fake.requests.length - upstreamBefore).toBe(AFFORDABLE);

    expect(samples.length).toBeGreaterThan(0);
    for (const sample of samples) {
      expect(sample.availableMicros).toBeGreaterThanOrEqual(0n);
      expect(sample.heldMicros).toBeGreaterThanOrEqual(0n);
      expect(sample.availableMicros + sample.heldMicros).toBeLessThanOrEqual(opening);
    }

    const charged = served.reduce((sum, r) => sum + micros(r.body.usage.cost), 0n);
    const after = await money(h, accountId);
    expect(after.postedMicros).toBe(charged);
    expect(after.heldMicros).toBe(0n);
    expect(after.availableMicros).toBeGreaterThanOrEqual(0n);
    expect(after.availableMicros).toBe(opening - charged);
    expect(after.records).toHaveLength(AFFORDABLE);
    expect(new Set(after.records.map((r) => r.requestId))).toEqual(
      new Set(served.map((r) => r.headers.get('x-request-id'))),
    );
    const totals = await h.deps.usageLog.totals(accountId, {});
    expect(totals.requests).toBe(AFFORDABLE);
    expect(totals.costMicros).toBe(charged);
    expect(await h.deps.ledger.sumOfAllBalances()).toBe(0n);
  });
});
