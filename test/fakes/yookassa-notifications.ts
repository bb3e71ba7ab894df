/**
 * The fake acquirer's notification sender (issue 27 item 6; research/payments.md 6.3): each state change queues the
 * notification YooKassa would POST (`{"type": "notification", "event", "object"}`, unsigned, JSON), and the test
 * says when and how they go out: once or several times (redelivery), in the order they were made or reversed (out
 * of order). Forged ones, which YooKassa never sent, are queued the same way and travel the same path.
 */
import type { WireObject } from './yookassa-wire.js';

export interface Notification {
  type: 'notification';
  event: string;
  object: WireObject;
}

/** How a delivery was answered: the HTTP status, or 0 when the webhook URL could not be reached. */
export interface DeliveryAnswer {
  event: string;
  objectId: string;
  status: number;
}

export interface DeliveryOptions {
  /** Each notification is POSTed this many times in a row (YooKassa redelivers until it gets a 200); default 1. */
  times?: number;
  /** `reversed` delivers the newest first; default as made. */
  order?: 'as-made' | 'reversed';
}

export class NotificationOutbox {
  readonly queued: Notification[] = [];
  readonly answers: DeliveryAnswer[] = [];
  webhookUrl: string | undefined;

  queue(event: string, object: WireObject): void {
    // A snapshot: the object as it was when its status changed (YooKassa: "all data about the object at that moment").
    this.queued.push({ type: 'notification', event, object: structuredClone(object) });
  }

  /** POSTs every queued notification to `webhookUrl` and empties the queue; the answers, in delivery order. */
  async deliver({ times = 1, order = 'as-made' }: DeliveryOptions = {}): Promise<DeliveryAnswer[]> {
    const url = this.webhookUrl;
    if (url === undefined) throw new Error('fake yookassa: no webhookUrl to deliver to');
    const batch = this.queued.splice(0);
    if (order === 'reversed') batch.reverse();
    const answers: DeliveryAnswer[] = [];
    for (const notification of batch) for (let i = 0; i < times; i++) answers.push(await post(url, notification));
    this.answers.push(...answers);
    return answers;
  }
}

async function post(url: string, notification: Notification): Promise<DeliveryAnswer> {
  const about = { event: notification.event, objectId: String(notification.object.id) };
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(notification),
    });
    await response.arrayBuffer();
    return { ...about, status: response.status };
  } catch {
    return { ...about, status: 0 };
  }
}
