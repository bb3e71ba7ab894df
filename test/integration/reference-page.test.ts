/**
 * The reference page in a real browser (DESIGN.md 12, issue 28): Debian's Chromium, driven by playwright-core,
 * loads `/docs` from a gateway, renders every operation of the contract, and asks nothing of any other origin.
 * Skipped, saying why, only where /usr/bin/chromium is absent (.ci/run installs it).
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractOperations } from '../setup/contract.js';
import { type Harness, startHarness } from '../setup/harness.js';

const CHROMIUM = '/usr/bin/chromium';
const missing = existsSync(CHROMIUM) ? null : `${CHROMIUM} is absent: .ci/run installs Debian's chromium package`;

/**
 * No network of its own (updates, sync, QUIC probes): every request the browser makes is the page's. `launch`
 * gives each run a fresh temporary profile and removes it on close.
 */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let h: Harness;
let browser: Browser;
beforeAll(async () => {
  if (missing !== null) {
    console.warn(`reference page browser tests skipped: ${missing}`);
    return;
  }
  h = await startHarness();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

interface PageLog {
  requests: string[];
  /** Failed requests and responses of 400 and above, each with why. */
  failures: string[];
  /** Uncaught exceptions, console errors and Content-Security-Policy violations. */
  errors: string[];
}

async function openReference(): Promise<{ page: Page; log: PageLog }> {
  const page = await browser.newPage();
  const log: PageLog = { requests: [], failures: [], errors: [] };
  page.on('request', (request) => log.requests.push(request.url()));
  page.on('requestfailed', (request) => log.failures.push(`${request.url()}: ${request.failure()?.errorText}`));
  page.on('response', (response) => {
    if (response.status() >= 400) log.failures.push(`${response.url()}: ${response.status()}`);
  });
  page.on('pageerror', (error) => log.errors.push(`uncaught: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') log.errors.push(`console: ${message.text()}`);
  });
  await page.exposeFunction('reportCspViolation', (text: string) => log.errors.push(`CSP: ${text}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      const report = (window as unknown as { reportCspViolation: (text: string) => void }).reportCspViolation;
      report(`${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  const response = await page.goto(`${h.baseUrl}/docs`);
  expect(response?.status()).toBe(200);
  return { page, log };
}

/** Every request went to the gateway (or is an inline `data:` image the CSP allows), and none failed. */
function expectOnlyOwnRequests(log: PageLog): void {
  const origin = new URL(h.baseUrl).origin;
  const elsewhere = log.requests.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin);
  expect(elsewhere).toEqual([]);
  expect(log.failures).toEqual([]);
  expect(log.errors).toEqual([]);
  expect(log.requests).toContain(`${origin}/openapi.json`);
}

describe('the reference page in Chromium', () => {
  it('lists every operation of the contract, with its summary, from this origin only', async (ctx) => {
    ctx.skip(missing !== null, missing ?? '');
    const { page, log } = await openReference();
    for (const summary of ['Start a deposit', 'Withdraw earnings in USDT-TRC20', 'Chat completions (compat)']) {
      await page.getByText(summary, { exact: true }).first().waitFor({ state: 'visible', timeout: 30_000 });
    }
    // Each operation's row: method, path and summary, as the page shows them.
    const rendered = await page
      .locator('.opblock-summary')
      .evaluateAll((rows) =>
        rows.map((row) =>
          [
            row.querySelector('.opblock-summary-method')?.textContent,
            row.querySelector('.opblock-summary-path')?.getAttribute('data-path'),
            row.querySelector('.opblock-summary-description')?.textContent,
          ].join(' '),
        ),
      );
    const paths = h.deps.contract.paths as Record<string, Record<string, { summary: string }>>;
    const expected = contractOperations().map(
      (op) => `${op.method} ${op.path} ${paths[op.path]![op.method.toLowerCase()]!.summary}`,
    );
    expect(new Set(rendered)).toEqual(new Set(expected));
    await page.waitForLoadState('networkidle');
    expectOnlyOwnRequests(log);
    await page.close();
  }, 120_000);

  it("an operation opened shows its parameters and responses, and still nothing leaves the gateway's origin", async (ctx) => {
    ctx.skip(missing !== null, missing ?? '');
    const { page, log } = await openReference();
    const summary = page.getByText('Withdraw earnings in USDT-TRC20', { exact: true }).first();
    await summary.waitFor({ state: 'visible', timeout: 30_000 });
    await summary.click();
    const operation = page.locator('.opblock.is-open').first();
    await operation.locator('.responses-wrapper').waitFor({ state: 'visible' });
    await operation.getByText('Request body', { exact: true }).first().waitFor({ state: 'visible' });
    expect(await operation.locator('.response[data-code="201"]').count()).toBe(1);
    await page.waitForLoadState('networkidle');
    expectOnlyOwnRequests(log);
    await page.close();
  }, 120_000);
});
