/**
 * How a failure leaves `cgw`: one line on stderr, `cgw: <message> (<code>, request <request_id>)`, so a person can
 * quote the request id to support (SPEC 2.7), and an exit code by class so a script can branch without parsing
 * text (the table is in README.md).
 */

import { GatewayError, JobFailedError } from '@compute-gateway/sdk';
import { CommanderError } from 'commander';

export const EXIT = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  payment: 5,
  rateLimited: 6,
  invalid: 7,
  service: 8,
  interrupted: 130,
} as const;

/** A mistake in how `cgw` was called that commander cannot see (a missing prompt, a bad number). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Errors with no HTTP status (a stream's error frame, a failed job) are classed by their catalog code. */
const byCode: Record<string, number> = {
  insufficient_balance: EXIT.payment,
  rate_limit_exceeded: EXIT.rateLimited,
  input_rejected: EXIT.invalid,
  invalid_request: EXIT.invalid,
  aborted: EXIT.interrupted,
  not_logged_in: EXIT.auth,
};

export function exitCodeFor(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
  if (error instanceof UsageError) return EXIT.usage;
  if (!(error instanceof GatewayError)) return EXIT.unexpected;
  const { status } = error;
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404) return EXIT.notFound;
  if (status === 402) return EXIT.payment;
  if (status === 429) return EXIT.rateLimited;
  if (status === 400 || status === 409 || status === 422) return EXIT.invalid;
  if (status >= 500) return EXIT.service;
  // status 0 (no answer, a cut stream, a failed job) or 200 (an error frame inside a stream)
  return byCode[error.code] ?? EXIT.service;
}

export function formatError(error: unknown): string {
  if (error instanceof GatewayError) {
    const where = error.requestId === undefined ? '' : `, request ${error.requestId}`;
    const job = error instanceof JobFailedError ? ` [job ${error.jobId}]` : '';
    return `cgw: ${oneLine(error.message)}${job} (${error.code}${where})`;
  }
  if (error instanceof UsageError) return `cgw: ${oneLine(error.message)} (usage_error)`;
  if (error instanceof Error) return `cgw: ${oneLine(error.message)} (${error.name})`;
  return `cgw: ${oneLine(String(error))}`;
}

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ').trim();

/** Not logged in: classed as auth (exit 3) without asking the service. */
export const notLoggedIn = (profile: string) =>
  new GatewayError({
    status: 401,
    code: 'not_logged_in',
    message: `no API key for profile "${profile}": run \`cgw login\` or set CGW_API_KEY`,
    retryable: false,
  });
