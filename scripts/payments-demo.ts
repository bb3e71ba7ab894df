/**
 * `make demo`: the gateway as `make run` serves it, with its payment rails pointed at loopback fakes of Stripe,
 * YooKassa and a java-tron node, and pages to pay on (test/fakes/payments-demo.ts; docs/payments.md "Trying the
 * payment rails locally"). Issue 27 item 6: a local demo, never in production, so NODE_ENV=production is refused.
 *
 * Run as `node --import tsx scripts/payments-demo.ts` from the repository's root, after the build: the fakes are
 * test code in TypeScript, loaded by tsx (already a dependency, `npm run admin` runs on it) without being built into
 * dist/; the gateway is the built dist/src/main.js, imported into this same process once its settings are in
 * process.env. One process: the gateway's own Ctrl-C drain ends the demo, and no fake outlives it.
 */
import { rmSync } from 'node:fs';

const STARTUP_ERROR_EXIT = 2; // the gateway's own code for a start it refuses (src/runtime/startup.ts)

if (process.env.NODE_ENV === 'production') {
  process.stderr.write(
    'payments demo refused: NODE_ENV=production. The demo points every payment rail at a fake that takes any ' +
      'payment; it is for trying the rails on one machine (docs/payments.md). Run the gateway with real settings.\n',
  );
  process.exit(STARTUP_ERROR_EXIT);
}

/** Its own database, new at every start: the fakes forget their payments when they stop, so the demo does too. */
const DATABASE = 'data/payments-demo.sqlite';
const port = Number(process.env.PORT ?? 8080);
const pagesPort = Number(process.env.PAYMENTS_DEMO_PORT ?? 8081);

// Test code is loaded only past the refusal above.
const { startPaymentsDemo } = await import('../test/fakes/payments-demo.js');
let demo: Awaited<ReturnType<typeof startPaymentsDemo>>;
try {
  demo = await startPaymentsDemo({ pagesPort });
} catch (error) {
  process.stderr.write(`payments demo cannot start its fakes: ${(error as Error).message}\n`);
  process.exit(STARTUP_ERROR_EXIT);
}
for (const suffix of ['', '-wal', '-shm']) rmSync(`${DATABASE}${suffix}`, { force: true });
// Rail settings from the shell (a real key, sender ranges) must not reach the demo's gateway: only the fakes' do.
for (const name of Object.keys(process.env)) if (/^(STRIPE|YOOKASSA|TRON)_/.test(name)) delete process.env[name];
// Loopback only, as the fakes are: what runs here takes fake money.
Object.assign(process.env, demo.gatewayEnv, { HOST: '127.0.0.1', DATABASE_URL: `sqlite:${DATABASE}` });
demo.notify(`http://127.0.0.1:${port}`);

// The built gateway, as `make run` starts it: it reads process.env, listens, and owns Ctrl-C from here on.
const gateway = '../dist/src/main.js';
await import(gateway);
process.stderr.write(
  [
    `payments demo: fake Stripe, YooKassa and java-tron on loopback; checkout pages and USDT sends at ${demo.pagesUrl}`,
    `  card or SBP: POST /v1/payments/deposits, open its checkout_url, press Pay`,
    `  USDT: curl -s ${demo.pagesUrl}/demo/tron/send -d '{"to": "<your deposit address>", "amount_usdt": 25}'`,
    `  database ${DATABASE}, new at every start; steps: docs/payments.md, "Trying the payment rails locally"`,
    '',
  ].join('\n'),
);
