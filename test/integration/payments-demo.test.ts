/**
 * `make demo` (issue 27 item 6: a local demo of the payment rails, never in production; docs/payments.md "Trying
 * the payment rails locally"): the fakes and pages started by the function scripts/payments-demo.ts starts them
 * with, a gateway given the settings they hand out, and a person paying through the demo's pages over HTTP as a
 * browser would. Then the script itself, refusing to start under NODE_ENV=production.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PaymentsDemo, startPaymentsDemo } from '../fakes/payments-demo.js';
import { expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { eventually } from '../setup/polling.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

let demo: PaymentsDemo;
let h: Harness;
beforeAll(async () => {
  demo = await startPaymentsDemo();
  h = await startHarness(demo.gatewayEnv);
  demo.notify(h.baseUrl);
});
afterAll(async () => {
  await h?.close();
  await demo?.close();
});

const balance = async (apiKey: string) =>
  expectNativeOk(await call(h.baseUrl, 'GET', '/v1/account', { key: apiKey })).balance_usd as number;
const deposit = async (apiKey: string, body: Record<string, unknown>) =>
  expectNativeOk(await call(h.baseUrl, 'POST', '/v1/payments/deposits', { key: apiKey, body }), 201);
/** The deposit once it is credited (the processor's webhook, or the watcher's next round, gets it there). */
const credited = (apiKey: string, depositId: string) =>
  eventually(async () => {
    const found = expectNativeOk(await call(h.baseUrl, 'GET', `/v1/payments/deposits/${depositId}`, { key: apiKey }));
    return found.status === 'credited' ? found : undefined;
  });

/** What a browser does on a checkout page: submit its form, follow the redirect, and read the page it lands on. */
async function pressPay(checkoutUrl: string): Promise<string> {
  const page = await fetch(checkoutUrl);
  expect(page.status).toBe(200);
  const action = /<form method="post" action="([^"]+)">/.exec(await page.text())?.[1];
  expect(action).toBeDefined();
  const after = await fetch(new URL(action!, checkoutUrl), { method: 'POST' });
  expect(after.status).toBe(200);
  return after.text();
}

describe('the payments demo', () => {
  it('a card deposit opens the demo’s checkout page; pressing Pay there credits it, once', async () => {
    const { apiKey } = await h.newAccount();
    const made = await deposit(apiKey, { method: 'card', amount_usd: 25 });
    expect(new URL(made.checkout_url).origin).toBe(demo.pagesUrl);
    expect(await balance(apiKey)).toBe(0);
    const after = await pressPay(made.checkout_url);
    expect(after).toContain('<b>paid</b>');
    expect(after).not.toContain('<form');
    expect(await credited(apiKey, made.deposit_id)).toMatchObject({ credited_usd: 25 });
    // The page no longer offers to pay, and a POST to it anyway pays nothing more.
    expect((await fetch(made.checkout_url, { method: 'POST' })).status).toBe(200);
    expect(await balance(apiKey)).toBe(25);
  });

  it('an SBP deposit is paid the same way on the fake YooKassa page, in rubles at the day’s rate', async () => {
    const { apiKey } = await h.newAccount();
    const made = await deposit(apiKey, { method: 'sbp', amount_rub: 900 });
    expect(await pressPay(made.checkout_url)).toContain('<b>succeeded</b>');
    expect(await credited(apiKey, made.deposit_id)).toMatchObject({ credited_usd: 10 }); // 900 RUB at 90 per dollar
  });

  it('USDT sent to the account’s address through the demo’s send endpoint is credited by the watcher', async () => {
    const { apiKey } = await h.newAccount();
    const made = await deposit(apiKey, { method: 'usdt_trc20' });
    // The watcher's first round starts at the chain's head: a transfer before it would not be the account's.
    await eventually(async () => (await h.deps.payments.deposits.cursor('tron')) ?? undefined);
    const refused = await fetch(`${demo.pagesUrl}/demo/tron/send`, {
      method: 'POST',
      body: JSON.stringify({ to: made.address, amount_usdt: -5 }),
    });
    expect(refused.status).toBe(400);
    const sent = await fetch(`${demo.pagesUrl}/demo/tron/send`, {
      method: 'POST',
      body: JSON.stringify({ to: made.address, amount_usdt: 12.5 }),
    });
    expect(sent.status).toBe(200);
    const { txid } = (await sent.json()) as { txid: string };
    expect(await credited(apiKey, made.deposit_id)).toMatchObject({ credited_usd: 12.5, tx_id: txid });
    expect(await balance(apiKey)).toBe(12.5);
  });
});

describe('scripts/payments-demo.ts', () => {
  it('refuses NODE_ENV=production with exit code 2 and says why, before starting anything', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/payments-demo.ts'], {
      cwd: ROOT,
      env: { ...process.env, NODE_ENV: 'production', PORT: '0', PAYMENTS_DEMO_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    // A demo that did start would serve until stopped: stop it, so the test fails on its code instead of hanging.
    const stop = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearTimeout(stop);
    expect(code).toBe(2);
    expect(stderr).toContain('payments demo refused: NODE_ENV=production');
    expect(stderr).not.toContain('compute-gateway serves');
    expect(stdout).toBe('');
  });
});
