/**
 * The shop's end of the fake acquirer's notifications: a loopback HTTP endpoint that hands each POST's raw bytes,
 * headers and socket address to `processor.parseWebhook` and answers as the webhook route will: 200 with the events
 * parsed, 400 for WebhookRejected (not YooKassa's), 503 for ProcessorUnavailable (YooKassa delivers again), 500
 * for anything else. What each delivery became is kept, in arrival order, and so is each delivery as it came (for
 * tests that parse the same bytes again, as the payment-processor conformance suite does).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type PaymentProcessor,
  type ProcessorEvent,
  ProcessorUnavailable,
  WebhookRejected,
} from '../../src/adapters/payment-processor/index.js';

/** A delivery as the route receives it: the exact bytes and the headers. */
export interface ReceivedWebhook {
  rawBody: Buffer;
  headers: Record<string, string | undefined>;
}

export type Received = { status: 200; events: ProcessorEvent[] } | { status: 400 | 503 | 500; error: Error };

export interface WebhookReceiver {
  url: string;
  received: Received[];
  /** Every delivery's bytes and headers, in arrival order (the same order as `received`). */
  webhooks: ReceivedWebhook[];
  /** The events of every accepted delivery so far, in order. */
  events(): ProcessorEvent[];
  close(): Promise<void>;
}

function statusOf(error: unknown): 400 | 503 | 500 {
  if (error instanceof WebhookRejected) return 400;
  return error instanceof ProcessorUnavailable ? 503 : 500;
}

export async function startWebhookReceiver(processor: PaymentProcessor): Promise<WebhookReceiver> {
  const received: Received[] = [];
  const webhooks: ReceivedWebhook[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const headers = Object.fromEntries(
        Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value]),
      );
      const rawBody = Buffer.concat(chunks);
      webhooks.push({ rawBody, headers });
      let outcome: Received;
      try {
        outcome = { status: 200, events: await processor.parseWebhook(rawBody, headers, req.socket.remoteAddress) };
      } catch (error) {
        outcome = { status: statusOf(error), error: error as Error };
      }
      received.push(outcome);
      res.writeHead(outcome.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/yookassa`,
    received,
    webhooks,
    events: () => received.flatMap((outcome) => (outcome.status === 200 ? outcome.events : [])),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
