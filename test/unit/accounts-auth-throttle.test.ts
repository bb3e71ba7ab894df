/**
 * The sign-in, sign-up, confirmation and reset throttle (src/domain/accounts/auth-throttle.ts; issue 26 item 5) on the
 * in-memory limiter with an injected clock, so every count and Retry-After is exact. Across processes on one Redis:
 * test/integration/auth-throttle-two-processes.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { FailOpenRateLimiter } from '../../src/adapters/rate-limiter/fail-open.js';
import type { AttemptRequest } from '../../src/adapters/rate-limiter/index.js';
import { MemoryRateLimiter } from '../../src/adapters/rate-limiter/memory.js';
import { AUTH_ATTEMPT_LIMITS, AuthThrottle } from '../../src/domain/accounts/auth-throttle.js';
import { ApiError } from '../../src/errors/api-error.js';

const T0 = 1_750_000_000_000;
const MINUTE_MS = 60_000;

/** The memory limiter, remembering every bucket name it was asked about. */
class RecordingLimiter extends MemoryRateLimiter {
  readonly buckets = new Set<string>();
  override hit(request: AttemptRequest) {
    for (const window of request.windows) this.buckets.add(window.bucket);
    return super.hit(request);
  }
}

function setup() {
  const clock = { nowMs: T0 };
  const limiter = new RecordingLimiter();
  return { clock, limiter, throttle: new AuthThrottle(limiter, () => clock.nowMs) };
}

/** The refusal thrown, or undefined when admitted. */
async function refusal(attempt: Promise<void>): Promise<ApiError | undefined> {
  try {
    await attempt;
    return undefined;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
}

/** How many of `count` attempts were admitted. */
async function admitted(count: number, attempt: (i: number) => Promise<void>): Promise<number> {
  let passed = 0;
  for (let i = 0; i < count; i += 1) if ((await refusal(attempt(i))) === undefined) passed += 1;
  return passed;
}

const address = (i: number) => `198.51.100.${i % 250}`;

describe('AuthThrottle', () => {
  it('sign-in: 10 per email in 15 min from any addresses, however the email is typed; then 429 with Retry-After', async () => {
    const { throttle, clock } = setup();
    const spellings = ['victim@example.com', 'Victim@Example.COM', '  victim@example.com '];
    for (let i = 0; i < 10; i += 1) {
      clock.nowMs = T0 + i * 1000;
      await throttle.signIn({ address: address(i), email: spellings[i % 3] as string });
    }
    const refused = await refusal(throttle.signIn({ address: address(99), email: 'VICTIM@example.com' }));
    expect(refused).toMatchObject({ code: 'auth_rate_limited', status: 429, headers: { 'Retry-After': '891' } });
    // Another account is not affected.
    await throttle.signIn({ address: address(99), email: 'other@example.com' });
  });

  it('sign-in: a refused attempt is not counted, so a full window passes again once the admitted ones leave', async () => {
    const { throttle, clock } = setup();
    const attempt = () => throttle.signIn({ address: '192.0.2.1', email: 'a@example.com' });
    expect(await admitted(10, attempt)).toBe(10);
    clock.nowMs = T0 + 14 * MINUTE_MS;
    expect(await admitted(50, attempt)).toBe(0);
    // The 10 of T0 have left; had the 50 refused ones of T0 + 14 min counted, nothing would pass yet.
    clock.nowMs = T0 + 15 * MINUTE_MS;
    expect(await admitted(12, attempt)).toBe(10);
  });

  it('sign-in: 20 per address in 15 min whatever emails it tries, one /64 being one IPv6 address', async () => {
    const { throttle } = setup();
    const sprayed = (from: (i: number) => string) =>
      admitted(30, (i) => throttle.signIn({ address: from(i), email: `user${i}@example.com` }));
    expect(await sprayed(() => '203.0.113.9')).toBe(20);
    expect(await sprayed((i) => `2001:db8:1:2::${i.toString(16)}`)).toBe(20);
    expect(await refusal(throttle.signIn({ address: '2001:db8:1:2:ffff::1', email: 'n@example.com' }))).toBeDefined();
    expect(await refusal(throttle.signIn({ address: '2001:db8:1:3::1', email: 'n@example.com' }))).toBeUndefined();
    // An IPv4-mapped IPv6 address is the IPv4 address it carries.
    expect(await refusal(throttle.signIn({ address: '::ffff:203.0.113.9', email: 'n2@example.com' }))).toBeDefined();
  });

  it('sign-in: at most 100 a day on one account, however slowly they come', async () => {
    const { throttle, clock } = setup();
    let passed = 0;
    for (let quarter = 0; quarter < 12; quarter += 1) {
      clock.nowMs = T0 + quarter * 15 * MINUTE_MS;
      passed += await admitted(10, (i) => throttle.signIn({ address: address(i), email: 'slow@example.com' }));
    }
    expect(passed).toBe(100);
    const refused = await refusal(throttle.signIn({ address: address(7), email: 'slow@example.com' }));
    // The day's window frees when the attempts of T0 leave it: 24 h after them.
    expect(refused?.headers['Retry-After']).toBe(String((24 * 60 - 11 * 15) * 60));
  });

  it('answers a registered and an unknown email alike, with one message whichever window was full', async () => {
    const { throttle } = setup();
    for (let i = 0; i < 10; i += 1) await throttle.signIn({ address: address(i), email: 'known@example.com' });
    const byEmail = await refusal(throttle.signIn({ address: address(50), email: 'known@example.com' }));
    for (let i = 0; i < 20; i += 1)
      await refusal(throttle.signIn({ address: '192.0.2.77', email: `x${i}@example.com` }));
    const byAddress = await refusal(throttle.signIn({ address: '192.0.2.77', email: 'nobody@example.com' }));
    for (const refused of [byEmail, byAddress])
      expect(refused).toMatchObject({ code: 'auth_rate_limited', status: 429, message: byEmail?.message });
  });

  it('keeps emails and addresses out of the bucket names', async () => {
    const { throttle, limiter } = setup();
    await throttle.signIn({ address: '203.0.113.50', email: 'Secret.Person@example.com' });
    await throttle.passwordResetRequest({ address: '2001:db8::50', email: 'secret.person@example.com' });
    expect(limiter.buckets.size).toBe(5);
    for (const bucket of limiter.buckets) {
      expect(bucket).toMatch(/^auth:[A-Za-z]+:[A-Za-z0-9_-]{22}$/);
      expect(bucket.toLowerCase()).not.toMatch(/secret|example|203\.0|2001/);
    }
  });

  it('sign-up: 5 an hour per address, 3 an hour per email', async () => {
    const { throttle } = setup();
    expect(await admitted(8, (i) => throttle.signUp({ address: '192.0.2.5', email: `new${i}@example.com` }))).toBe(5);
    expect(await admitted(8, (i) => throttle.signUp({ address: address(i), email: 'target@example.com' }))).toBe(3);
  });

  it('confirmation mail: one a minute per email, five a day, ten an hour per address', async () => {
    const { throttle, clock } = setup();
    const resend = () => refusal(throttle.confirmationResend({ address: '192.0.2.6', email: 'me@example.com' }));
    expect(await resend()).toBeUndefined();
    clock.nowMs = T0 + 59_000;
    expect((await resend())?.headers['Retry-After']).toBe('1');
    for (let minute = 1; minute <= 4; minute += 1) {
      clock.nowMs = T0 + minute * MINUTE_MS;
      expect(await resend()).toBeUndefined();
    }
    clock.nowMs = T0 + 5 * MINUTE_MS;
    expect(await resend()).toBeDefined(); // the sixth of the day
    const others = (i: number) => throttle.confirmationResend({ address: '192.0.2.6', email: `o${i}@example.com` });
    expect(await admitted(10, others)).toBe(5); // 5 of the address's 10 an hour were taken above
  });

  it('password reset requests: 3 an hour per email, 10 an hour per address', async () => {
    const { throttle } = setup();
    const perEmail = (i: number) => throttle.passwordResetRequest({ address: address(i), email: 'r@example.com' });
    expect(await admitted(6, perEmail)).toBe(3);
    const perAddress = (i: number) =>
      throttle.passwordResetRequest({ address: '192.0.2.8', email: `r${i}@example.com` });
    expect(await admitted(15, perAddress)).toBe(10);
  });

  it('link redemption: 30 per address in 15 min; the second factor: 5 per account', async () => {
    const { throttle } = setup();
    expect(await admitted(40, () => throttle.linkRedemption({ address: '192.0.2.9' }))).toBe(30);
    const code = (i: number) => throttle.secondFactor({ address: address(i), accountId: 'acc_1' });
    expect(await admitted(9, code)).toBe(5);
    expect(await refusal(throttle.secondFactor({ address: address(0), accountId: 'acc_2' }))).toBeUndefined();
  });

  it('names each limit once, with whole-number limits and windows', () => {
    for (const { limit, windowMs } of Object.values(AUTH_ATTEMPT_LIMITS)) {
      expect(Number.isSafeInteger(limit) && limit > 0).toBe(true);
      expect(Number.isSafeInteger(windowMs) && windowMs >= MINUTE_MS).toBe(true);
    }
  });

  it('fails closed: the shared store down is a retryable 503 not_ready, never an admitted attempt', async () => {
    const unreachable = new FailOpenRateLimiter({
      primary: new MemoryRateLimiter(),
      fallback: new MemoryRateLimiter(),
      logger: { warn: () => {} },
      isPrimaryReady: () => false,
    });
    const refused = await refusal(new AuthThrottle(unreachable).signIn({ address: '192.0.2.1', email: 'a@b.co' }));
    expect(refused).toMatchObject({ code: 'not_ready', status: 503 });
  });
});
