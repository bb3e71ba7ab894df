/**
 * `cgw deposit|withdraw` against a gateway whose payment rails point at the local demo's fakes (a checkout page, a
 * TRON node): a card deposit prints its checkout link, a USDT deposit its TRC20 address with a terminal QR code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PaymentsDemo, startPaymentsDemo } from '../fakes/payments-demo.js';
import { type Harness, startHarness } from '../setup/harness.js';
import { cgw, ERROR_LINE, ensureBuilt, tempHome } from './cgw.js';

let demo: PaymentsDemo;
let h: Harness;
let home: Awaited<ReturnType<typeof tempHome>>;
let env: Record<string, string>;
beforeAll(async () => {
  demo = await startPaymentsDemo();
  [h, home] = await Promise.all([startHarness(demo.gatewayEnv), tempHome(), ensureBuilt()]);
  demo.notify(h.baseUrl);
  const { apiKey } = await h.newAccount();
  env = { ...home.env, CGW_API_KEY: apiKey, CGW_BASE_URL: h.baseUrl };
});
afterAll(async () => {
  await h?.close();
  await demo?.close();
  await home?.cleanup();
});

describe('cgw deposit', () => {
  it('a card deposit prints its checkout link; it is listed after', async () => {
    const result = await cgw(['deposit', '--method', 'card', '--amount', '25'], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const link = /Pay here: (\S+)/.exec(result.stdout)?.[1] ?? '';
    expect(new URL(link).origin).toBe(demo.pagesUrl);
    expect(result.stdout).toContain('$25.00');
    const listed = JSON.parse((await cgw(['deposit', 'list', '--json'], { env })).stdout);
    expect(listed.deposits).toEqual([expect.objectContaining({ method: 'card', amount_usd: 25, checkout_url: link })]);
    const noAmount = await cgw(['deposit', '--method', 'card'], { env });
    expect(noAmount.code).toBe(2);
    expect(noAmount.stderr).toMatch(ERROR_LINE);
  });

  it('a USDT deposit prints the TRC20 address and a QR code of it; --json has the address', async () => {
    const result = await cgw(['deposit', '--method', 'usdt'], { env });
    expect(result.code).toBe(0);
    const address = /to: (T[1-9A-HJ-NP-Za-km-z]{33})/.exec(result.stdout)?.[1];
    expect(address).toBeDefined();
    const qrLines = result.stdout.split('\n').filter((line) => /^[█▀▄ ]{20,}$/.test(line));
    expect(qrLines.length).toBeGreaterThan(10);
    const json = JSON.parse((await cgw(['deposit', '--method', 'usdt', '--json'], { env })).stdout);
    expect(json).toMatchObject({ method: 'usdt_trc20', address });
    const shown = await cgw(['deposit', 'show', json.deposit_id, '--no-qr'], { env });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(address);
    expect(shown.stdout.split('\n').filter((line) => /^[█▀▄ ]{20,}$/.test(line))).toEqual([]);
  });
});

describe('cgw withdraw', () => {
  it('lists withdrawals and what is withdrawable; a withdrawal needs its flags', async () => {
    const listed = await cgw(['withdraw', 'list'], { env });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('no withdrawals');
    expect(listed.stdout).toContain('withdrawable now $0.00');
    const addresses = await cgw(['withdraw', 'addresses', '--json'], { env });
    expect(addresses.code).toBe(0);
    expect(JSON.parse(addresses.stdout).addresses).toEqual([]);
    const missing = await cgw(['withdraw', '--amount', '5'], { env });
    expect(missing.code).toBe(2);
    const unknown = await cgw(['withdraw', '--to', 'wda_nothere', '--amount', '5'], { env });
    expect([4, 7]).toContain(unknown.code);
    expect(unknown.stderr).toMatch(ERROR_LINE);
  });
});
