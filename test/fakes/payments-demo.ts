/**
 * The local payments demo (issue 27 item 6: "the embedded default (`make run`) can run them as a local demo
 * (documented), never in production"): the loopback fakes of Stripe, YooKassa and a java-tron node, the pages a
 * person pays on (payments-demo-pages.ts), and the settings that point a gateway at them. scripts/payments-demo.ts
 * (`make demo`) starts it, then the gateway; test/integration/payments-demo.test.ts starts it the same way, with a
 * gateway of its own. Everything lives in memory: when the demo stops, its payments are gone.
 */
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import { DEPOSIT_ACCOUNT_PATH } from '../../src/lib/tron/deposit-address.js';
import { startFakeJavaTron } from './java-tron.js';
import { startDemoPages } from './payments-demo-pages.js';
import { FakeStripe } from './stripe.js';
import { FakeYooKassa } from './yookassa.js';

/**
 * The deposit wallet: the research vector's mnemonic (test/unit/tron-address.test.ts), whose keys anyone can
 * derive, so its addresses are only ever fed by the fake chain. The gateway gets its account xpub, never the seed.
 */
const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
/** USDT's mainnet contract: the fake chain's token takes its address, as TRON_USDT_CONTRACT's default does. */
const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

export interface PaymentsDemo {
  /** The payment settings for the gateway (src/config-payments.ts), every rail pointed at a fake here. */
  gatewayEnv: Record<string, string>;
  /** The demo's own pages: the checkouts to pay, and `POST /demo/tron/send`. */
  pagesUrl: string;
  /** Sends the fakes' webhooks and notifications to the gateway serving at `baseUrl`. */
  notify(baseUrl: string): void;
  close(): Promise<void>;
}

/** `pagesPort`: where the demo's pages listen (0, the default: any free port). */
export async function startPaymentsDemo(options: { pagesPort?: number } = {}): Promise<PaymentsDemo> {
  const stripe = await FakeStripe.start();
  const yookassa = await FakeYooKassa.start();
  // A chain near mainnet's height, its clock starting now (block times are what the watcher records).
  const tron = await startFakeJavaTron({ token: USDT, firstBlockNumber: 60_000_000, firstBlockTimeMs: Date.now() });
  const pages = await startDemoPages({ stripe, yookassa, tron }, options.pagesPort ?? 0);
  const xpub = HDKey.fromMasterSeed(mnemonicToSeedSync(ABANDON)).derive(DEPOSIT_ACCOUNT_PATH).publicExtendedKey;
  return {
    gatewayEnv: {
      STRIPE_API_URL: stripe.apiBaseUrl,
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_WEBHOOK_SECRET: stripe.webhooks.signingSecret,
      YOOKASSA_API_URL: yookassa.apiBase,
      YOOKASSA_SHOP_ID: yookassa.shopId,
      YOOKASSA_SECRET_KEY: yookassa.secretKey,
      TRON_NODE_URL: tron.url,
      TRON_XPUB: xpub,
      TRON_USDT_CONTRACT: USDT,
      // A transfer sent from the demo page is solidified at once: seen within a second, not TRON's 3 s.
      TRON_POLL_MS: '1000',
    },
    pagesUrl: pages.url,
    notify(baseUrl) {
      stripe.webhooks.url = `${baseUrl}/v1/payments/webhooks/stripe`;
      yookassa.outbox.webhookUrl = `${baseUrl}/v1/payments/webhooks/yookassa`;
    },
    async close() {
      await pages.close();
      await Promise.all([stripe.close(), yookassa.close(), tron.close()]);
    },
  };
}
