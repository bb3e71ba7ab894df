/**
 * A loopback webhook endpoint for tests of the Stripe adapter without the app: it keeps each request's exact
 * bytes and headers (what a webhook route hands to parseWebhook) and answers 200.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  rawBody: Buffer;
  headers: Record<string, string | undefined>;
}

export interface WebhookSink {
  url: string;
  /** Everything received, oldest first. */
  received: ReceivedWebhook[];
  /** What arrived since the last call. */
  take(): ReceivedWebhook[];
  close(): Promise<void>;
}

export async function startWebhookSink(): Promise<WebhookSink> {
  const received: ReceivedWebhook[] = [];
  let taken = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]),
      );
      received.push({ rawBody: Buffer.concat(chunks), headers });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/stripe`,
    received,
    take: () => received.slice(taken, (taken = received.length)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
