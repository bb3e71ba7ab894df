import type { Registry } from 'prom-client';
import { counter as registeredCounter } from '../../lib/metrics.js';
import type { AttemptFailure, ExhaustionInfo } from './run-chain.js';

/** The slice of a pino logger the alert needs. */
export interface AlertLogger {
  error(obj: Record<string, unknown>, msg: string): void;
}

const METRIC = 'gateway_chain_exhausted_total';
/** Upstream error texts are the vendor's; keep the log line bounded. */
const MAX_MESSAGE_CHARS = 200;

/**
 * The operator alert of SPEC 7.3 ("a chain-exhausted failure raises one operator alert per request"), as the
 * `onExhausted` hook of runChain, which calls it exactly once per exhausted chain: one error log line to page on
 * and a counter to graph and alert on by model and code.
 */
export function createChainAlert(logger: AlertLogger, registry: Registry): (info: ExhaustionInfo) => void {
  const counter = registeredCounter(
    registry,
    METRIC,
    'Requests whose every upstream route failed (SPEC 7.3), by catalog slug and SPEC 7.2 code',
    ['model', 'code'],
  );
  return (info) => {
    logger.error(
      {
        event: 'chain_exhausted',
        requestId: info.requestId,
        slug: info.slug,
        code: info.code,
        attempts: info.failures.map(describe),
      },
      'every upstream route failed',
    );
    counter.inc({ model: info.slug ?? 'unknown', code: info.code });
  };
}

function describe({ provider, failure }: AttemptFailure): Record<string, unknown> {
  return {
    provider,
    kind: failure.kind,
    ...(failure.kind === 'http' ? { status: failure.status } : {}),
    message: failure.message.slice(0, MAX_MESSAGE_CHARS),
  };
}
