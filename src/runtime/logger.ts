import { type Logger, pino } from 'pino';

/** JSON lines on stdout; secrets in headers never reach the log. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'compute-gateway' },
    redact: ['req.headers.authorization', 'req.headers["x-api-key"]', '*.api_key'],
  });
}
