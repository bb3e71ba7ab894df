/**
 * YooKassa's HTTP notifications (yookassa.ru/developers/using-api/webhooks): a POST of
 * `{"type": "notification", "event": "payment.succeeded", "object": {…the payment or refund…}}` with no signature.
 * Only two things are taken from one: which kind of object changed and its id. Everything else (status, amount,
 * metadata) is read back from the API by the adapter (issue 27, research/payments.md 3), so a forged or stale
 * notification can at most make us look.
 */
import { isRecord } from '../../lib/is-record.js';
import { WebhookRejected } from './index.js';

export interface NotificationHint {
  /** The object the event is about: a payment (`payment.*`) or a refund (`refund.*`). */
  object: 'payment' | 'refund';
  /** Its id, to GET. */
  id: string;
}

/** YooKassa's object ids are UUID-like (`2c0c9f4a-000f-5000-8000-1b9d5c6d0e41`); anything else is not theirs. */
const OBJECT_ID = /^[0-9a-zA-Z-]{1,64}$/;

/**
 * The object a notification names; WebhookRejected for a body that is not one, and for events about other objects
 * (payouts, deals, saved payment methods): those are not asked for, and nothing here could verify them.
 */
export function readNotification(rawBody: Buffer): NotificationHint {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new WebhookRejected('the notification is not JSON');
  }
  if (!isRecord(body) || body.type !== 'notification' || typeof body.event !== 'string' || !isRecord(body.object))
    throw new WebhookRejected('the body is not a YooKassa notification');
  const id = body.object.id;
  if (typeof id !== 'string' || !OBJECT_ID.test(id)) throw new WebhookRejected('the notification names no object id');
  const object = body.event.split('.')[0];
  if (object !== 'payment' && object !== 'refund')
    throw new WebhookRejected(`notifications of ${JSON.stringify(body.event)} are not taken`);
  return { object, id };
}
