import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { counter, histogram } from '../../lib/metrics.js';
import type { LossReport } from './billing.js';
import { microsToUsd } from './money.js';

/**
 * DESIGN.md 3 "Hold = ceiling": a vendor that reports more than the request's hold is the platform's loss, posted
 * in the ledger and never silent: a warning per request and a counter to alert on, by model.
 */
export function createLossAlert(logger: Pick<Logger, 'warn'>, registry: Registry): (report: LossReport) => void {
  const loss = counter(
    registry,
    'gateway_platform_loss_usd_total',
    'USD a request cost beyond its hold (absorbed by the platform), by catalog slug',
    ['model'],
  );
  return (report) => {
    logger.warn(
      {
        event: 'platform_loss',
        requestId: report.requestId,
        model: report.model,
        loss_usd: microsToUsd(report.lossMicros),
      },
      'upstream usage exceeded the hold',
    );
    loss.inc({ model: report.model }, microsToUsd(report.lossMicros));
  };
}

/** The size of each ledger write (README.md "Group commit"): how well group commit amortises under load. */
export function ledgerBatchObserver(registry: Registry): (operations: number) => void {
  const sizes = histogram(
    registry,
    'gateway_ledger_batch_operations',
    'Ledger operations per database write',
    [1, 2, 4, 8, 16, 32, 64, 128, 256],
  );
  return (operations) => sizes.observe(operations);
}
