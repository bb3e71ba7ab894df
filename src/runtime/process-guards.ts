import type { Logger } from 'pino';

/**
 * A promise rejection nobody handled is a bug, but one request's bug: it is logged, with its stack, and the
 * process keeps serving everyone else (Node's default would exit, dropping every request in flight and every
 * stream). An uncaught exception still ends the process: the state it leaves behind cannot be trusted.
 */
export function logUnhandledRejections(logger: Pick<Logger, 'error'>): void {
  process.on('unhandledRejection', (reason) => {
    logger.error({ event: 'unhandled_rejection', err: reason }, 'a promise rejection nobody handled; still serving');
  });
}
