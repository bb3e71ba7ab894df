/**
 * Business outcomes of the account use cases. Deliberately free of HTTP: the HTTP layer maps each code to its
 * error catalog entry, the admin CLI prints it as JSON.
 */
export type DomainErrorCode =
  | 'email_taken'
  | 'invalid_email'
  | 'invalid_discount'
  | 'account_not_found'
  | 'api_key_not_found'
  | 'invalid_amount'
  | 'machine_not_found';

export class DomainError extends Error {
  override readonly name = 'DomainError';

  constructor(
    readonly code: DomainErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export function isDomainError(value: unknown): value is DomainError {
  return value instanceof DomainError;
}
