/**
 * The local payments demo's own pages (issue 27 item 6; docs/payments.md "Trying the payment rails locally"): what
 * a person does on the processors' side, over loopback HTTP, against the fakes the demo's gateway talks to. The
 * fakes' checkout URLs are pointed here, so the `checkout_url` of `POST /v1/payments/deposits` opens one of these.
 *
 *   GET  /checkout/stripe/{session id}     the fake Stripe Checkout page: the amount, and a Pay button while open
 *   POST /checkout/stripe/{session id}     pays it (the fake's webhook goes to the gateway), then shows the page again
 *   GET  /checkout/yookassa/{payment id}   the same for a YooKassa payment
 *   POST /checkout/yookassa/{payment id}   succeeds it and delivers the fake's notification
 *   POST /demo/tron/send {to, amount_usdt} a USDT transfer to `to` in a new block, solidified at once (no wallet)
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isTronAddress } from '../../src/lib/tron/address.js';
import { addressFromPrivateKey } from '../../src/lib/tron/key-address.js';
import type { FakeJavaTron } from './java-tron.js';
import type { FakeStripe } from './stripe.js';
import type { FakeYooKassa } from './yookassa.js';

export interface DemoRails {
  stripe: FakeStripe;
  yookassa: FakeYooKassa;
  tron: FakeJavaTron;
}

export interface DemoPages {
  url: string;
  close(): Promise<void>;
}

/** A checkout as its page shows it. */
interface CheckoutView {
  amount: string;
  status: string;
  open: boolean;
  depositId: unknown;
}

interface Checkouts {
  title: string;
  view(ref: string): CheckoutView | undefined;
  pay(ref: string): Promise<void>;
}

/** Minor units as a decimal for display ("2500" → "25.00"), in integers. */
const decimal = (minor: number) => `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;

/** Our deposit id, as the adapters put it in the payment's metadata. */
const depositIdOf = (object: { metadata?: unknown }) =>
  (object.metadata as Record<string, unknown> | undefined)?.deposit_id;

function checkoutsOf({ stripe, yookassa }: DemoRails): Record<string, Checkouts> {
  const stripeView = (id: string): CheckoutView | undefined => {
    const session = stripe.state.sessions.get(id)?.session;
    if (session === undefined) return undefined;
    return {
      amount: `${decimal(session.amount_total)} ${session.currency.toUpperCase()}`,
      status: session.payment_status === 'paid' ? 'paid' : session.status,
      open: session.status === 'open',
      depositId: depositIdOf(session),
    };
  };
  const yookassaView = (id: string): CheckoutView | undefined => {
    const payment = yookassa.payments.get(id);
    if (payment === undefined) return undefined;
    const { value, currency } = payment.amount as { value: string; currency: string };
    const status = String(payment.status);
    return { amount: `${value} ${currency}`, status, open: status === 'pending', depositId: depositIdOf(payment) };
  };
  return {
    stripe: { title: 'Fake Stripe Checkout', view: stripeView, pay: (id) => stripe.pay(id) },
    yookassa: {
      title: 'Fake YooKassa (SBP)',
      view: yookassaView,
      pay: async (id) => {
        yookassa.succeed(id);
        await yookassa.outbox.deliver();
      },
    },
  };
}

const htmlText = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function checkoutPage(checkouts: Checkouts, view: CheckoutView, path: string): string {
  const deposit = htmlText(String(view.depositId));
  const action = view.open
    ? `<form method="post" action="${htmlText(path)}"><button type="submit">Pay ${htmlText(view.amount)}</button></form>`
    : `<p>This payment is <b>${htmlText(view.status)}</b>; the gateway was told. Its deposit: ` +
      `<code>GET /v1/payments/deposits/${deposit}</code>.</p>`;
  return `<!doctype html><html><head><meta charset="utf-8"><title>${checkouts.title}</title></head><body>
<h1>${checkouts.title}</h1><p>Deposit <code>${deposit}</code>: ${htmlText(view.amount)}, ${htmlText(view.status)}.</p>
${action}<p><small>A local demo (make demo): no money moves anywhere.</small></p></body></html>`;
}

/** Someone paying in: a key of the demo's own, minted what it sends just before sending it. */
const TREASURY = addressFromPrivateKey(randomBytes(32));

/** "12.5" or 12.5 → 12 500 000 base units (USDT has 6 decimals); null for anything else. */
function usdtBaseUnits(amount: unknown): bigint | null {
  const text = typeof amount === 'number' || typeof amount === 'string' ? String(amount) : '';
  const match = /^(\d{1,12})(?:\.(\d{1,6}))?$/.exec(text);
  if (match === null) return null;
  const units = BigInt(match[1]!) * 1_000_000n + BigInt((match[2] ?? '').padEnd(6, '0'));
  return units > 0n ? units : null;
}

function sendUsdt({ tron }: DemoRails, body: Record<string, unknown>): { status: number; body: unknown } {
  const amount = usdtBaseUnits(body.amount_usdt);
  if (typeof body.to !== 'string' || !isTronAddress(body.to) || amount === null)
    return { status: 400, body: { error: 'send {"to": "T…", "amount_usdt": 25} (a TRON address, a positive amount)' } };
  tron.chain.mint(TREASURY, amount);
  const txid = tron.chain.addTransfers([{ contract: tron.chain.token, from: TREASURY, to: body.to, amount }]);
  const block = tron.chain.mineBlock().number;
  tron.chain.solidify();
  return { status: 200, body: { txid, block, solidified: true } };
}

async function handle(rails: DemoRails, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let raw = '';
  for await (const chunk of req) raw += chunk;
  const path = new URL(req.url ?? '/', 'http://demo').pathname;
  if (req.method === 'POST' && path === '/demo/tron/send') {
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      body = {};
    }
    const answer = sendUsdt(rails, typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {});
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    return;
  }
  const [, processor, ref] = /^\/checkout\/(stripe|yookassa)\/([^/]+)$/.exec(path) ?? [];
  const checkouts = processor === undefined ? undefined : checkoutsOf(rails)[processor];
  const view = checkouts?.view(decodeURIComponent(ref!));
  if (checkouts === undefined || view === undefined) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('no such checkout on this demo\n');
    return;
  }
  if (req.method === 'POST') {
    if (view.open) await checkouts.pay(decodeURIComponent(ref!));
    res.writeHead(303, { location: path }).end();
    return;
  }
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(checkoutPage(checkouts, view, path));
}

/** Serves the pages on loopback at `port` (0: any free one) and points the fakes' checkout URLs at them. */
export async function startDemoPages(rails: DemoRails, port: number): Promise<DemoPages> {
  const server = createServer((req, res) => {
    handle(rails, req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`${error instanceof Error ? error.message : String(error)}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  rails.stripe.setCheckoutPage((id) => `${url}/checkout/stripe/${encodeURIComponent(id)}`);
  rails.yookassa.setCheckoutPage((id) => `${url}/checkout/yookassa/${encodeURIComponent(id)}`);
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
