import { ProcessorUnavailable, WebhookRejected } from '../../adapters/payment-processor/index.js';
import { railUnavailable } from '../../domain/payments/deposit-rails.js';
import { applyProcessorEvents } from '../../domain/payments/deposit-settlement.js';
import { ApiError } from '../../errors/api-error.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler, RequestContext } from '../../http/operation-types.js';
import { rawBodyOf } from '../../http/raw-body.js';

/**
 * A processor's webhook (issue 27 item 1): verified on its raw bytes, then applied; 400 `webhook_rejected` for one
 * not provably the processor's, with nothing done; 503 while the processor cannot be asked, so it delivers again.
 */
async function receive(
  processor: 'stripe' | 'yookassa',
  { deps, req }: Pick<RequestContext<'receiveStripeWebhook'>, 'deps' | 'req'>,
) {
  const method = processor === 'stripe' ? 'card' : 'sbp';
  const rail = deps.payments.rails[processor];
  if (rail === undefined) throw railUnavailable(method, 'it is not configured');
  const headers = Object.fromEntries(
    Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value[0] : value]),
  );
  try {
    const events = await rail.parseWebhook(rawBodyOf(req), headers, req.ip);
    await applyProcessorEvents(deps.payments, processor, events);
  } catch (err) {
    if (err instanceof WebhookRejected) throw new ApiError('webhook_rejected', err.message);
    if (err instanceof ProcessorUnavailable) throw railUnavailable(method, 'its processor is unreachable');
    throw err;
  }
  return { status: 200 as const, body: nativeOk({ received: true as const }) };
}

export const receiveStripeWebhook: Handler<'receiveStripeWebhook'> = (ctx) => receive('stripe', ctx);
export const receiveYookassaWebhook: Handler<'receiveYookassaWebhook'> = (ctx) => receive('yookassa', ctx);
