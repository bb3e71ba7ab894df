import type { Request } from 'express';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { counter } from '../lib/metrics.js';

/** Findings are the validator's; keep the log line bounded. */
const MAX_FINDINGS = 5;

/**
 * `VALIDATE_RESPONSES=report`: a response that leaves the contract is still sent (the work may be charged already;
 * a 500 would tell the client it was not), and the violation is an error log line and a counter by route, so an
 * operator learns of it the way tests would have.
 */
export function contractViolationReporter(
  logger: Pick<Logger, 'error'>,
  registry: Registry,
): (err: Error & { errors?: unknown[] }, body: unknown, req: Request) => void {
  const violations = counter(
    registry,
    'gateway_contract_violations_total',
    'Responses sent although they left the contract, by method and route',
    ['method', 'route'],
  );
  return (err, _body, req) => {
    const route = String((req as Request & { openapi?: { openApiRoute?: string } }).openapi?.openApiRoute ?? req.path);
    logger.error(
      {
        event: 'contract_violation',
        requestId: req.res?.locals.requestId,
        method: req.method,
        route,
        findings: (err.errors ?? []).slice(0, MAX_FINDINGS),
      },
      'a response left the contract; sent anyway',
    );
    violations.inc({ method: req.method, route });
  };
}
