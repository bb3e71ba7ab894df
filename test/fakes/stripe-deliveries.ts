/**
 * How the fake Stripe sends its events to a webhook endpoint: a POST of the event's JSON (pretty-printed, as
 * Stripe sends it) with a `Stripe-Signature` made by the official `generateTestHeaderString`, at least once and
 * in no promised order (docs.stripe.com/webhooks). A test can hold deliveries and release them later or
 * reversed, send one again (same event id, a fresh signature, as Stripe's retries do), or sign with a stale time.
 */
import Stripe from 'stripe';
import type { FakeEvent } from './stripe-objects.js';

export interface Delivery {
  eventId: string;
  type: string;
  /** The endpoint's answer; 0 when it could not be reached. */
  status: number;
}

export class WebhookDeliveries {
  /** Where events go; null: they are only recorded. */
  url: string | null = null;
  /** The endpoint's signing secret the events are signed with (change it to model a rolled secret). */
  signingSecret: string;
  readonly events: FakeEvent[] = [];
  readonly deliveries: Delivery[] = [];
  #held: FakeEvent[] | null = null;

  constructor(signingSecret: string) {
    this.signingSecret = signingSecret;
  }

  /** Records the events and sends them in order, unless deliveries are held. */
  async emit(events: readonly FakeEvent[]): Promise<void> {
    this.events.push(...events);
    for (const event of events) {
      if (this.#held === null) await this.#send(event);
      else this.#held.push(event);
    }
  }

  /** Until release, events are kept instead of sent. */
  hold(): void {
    this.#held ??= [];
  }

  /** Sends what was held, in the order emitted or newest first (Stripe promises no order); then stops holding. */
  async release(order: 'as_emitted' | 'reversed' = 'as_emitted'): Promise<void> {
    const held = this.#held ?? [];
    this.#held = null;
    for (const event of order === 'reversed' ? [...held].reverse() : held) await this.#send(event);
  }

  /** Sends an event again, as Stripe's retries and the Dashboard's "resend" do. */
  async redeliver(eventId: string, options: { timestampSec?: number } = {}): Promise<void> {
    await this.#send(this.events.find((event) => event.id === eventId) ?? missingEvent(eventId), options.timestampSec);
  }

  async #send(event: FakeEvent, timestampSec?: number): Promise<void> {
    if (this.url === null) return;
    const payload = JSON.stringify(event, null, 2);
    const signature = Stripe.webhooks.generateTestHeaderString({
      payload,
      secret: this.signingSecret,
      ...(timestampSec !== undefined && { timestamp: timestampSec }),
    });
    const status = await fetch(this.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'stripe-signature': signature,
        'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
      },
      body: payload,
    }).then(
      async (response) => {
        await response.arrayBuffer();
        return response.status;
      },
      () => 0,
    );
    this.deliveries.push({ eventId: event.id, type: event.type, status });
  }
}

function missingEvent(id: string): never {
  throw new Error(`no event ${id} to deliver`);
}
