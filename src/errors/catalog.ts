import type { components } from '../../generated/openapi.js';

export type ErrorCode = components['schemas']['ErrorCode'];

export interface ErrorSpec {
  status: number;
  /** OpenAI-style class name (SPEC 7.2); informational. */
  type: string;
  /** Whether repeating the same request can succeed: drives `x-should-retry`. */
  retryable: boolean;
  /** Default human-readable text. */
  message: string;
}

const invalid = 'invalid_request_error';

/**
 * The one error catalog (SPEC 7.2 plus the service additions of DESIGN.md 3). `satisfies` makes it exhaustive
 * over the contract's ErrorCode enum: a code added to the contract without an entry here does not compile.
 */
export const ERROR_CATALOG = {
  insufficient_balance: {
    status: 402,
    type: 'insufficient_quota',
    retryable: false,
    message: 'The balance is below the estimated cost of this request',
  },
  billing_temporarily_unavailable: {
    status: 503,
    type: 'api_error',
    retryable: true,
    message: 'Billing is briefly unreachable; the request was rejected to avoid double billing. Retry in a few seconds',
  },
  authentication_required: {
    status: 401,
    type: invalid,
    retryable: false,
    message: 'Send Authorization: Bearer <API_KEY> or X-API-Key: <API_KEY>',
  },
  invalid_api_key: {
    status: 401,
    type: invalid,
    retryable: false,
    message: 'The API key is malformed or does not exist',
  },
  api_key_revoked: { status: 401, type: invalid, retryable: false, message: 'The API key has been revoked' },
  user_not_found: {
    status: 404,
    type: invalid,
    retryable: false,
    message: 'The account behind this API key no longer exists',
  },
  rate_limit_per_key: {
    status: 429,
    type: 'rate_limit_exceeded',
    retryable: true,
    message: 'This API key exceeded its per-minute request limit',
  },
  rate_limit_per_user: {
    status: 429,
    type: 'rate_limit_exceeded',
    retryable: true,
    message: 'This account exceeded its per-minute request limit across all its keys',
  },
  model_not_found: {
    status: 400,
    type: invalid,
    retryable: false,
    message: 'The model is not in the catalog or not served by this endpoint',
  },
  model_required: { status: 400, type: invalid, retryable: false, message: 'model is required' },
  model_is_image: {
    status: 400,
    type: invalid,
    retryable: false,
    message: 'This is an image model; use the images endpoints',
  },
  model_is_retrieval: {
    status: 400,
    type: invalid,
    retryable: false,
    message: 'This is an embedding or rerank model; use /embeddings or /rerank',
  },
  model_disabled: { status: 503, type: 'api_error', retryable: false, message: 'The model is disabled platform-wide' },
  input_required: { status: 400, type: invalid, retryable: false, message: 'input is required and must not be empty' },
  dimensions_unsupported: {
    status: 400,
    type: invalid,
    retryable: false,
    message: 'dimensions is accepted only by text-embedding-3-large and text-embedding-3-small',
  },
  messages_required: {
    status: 400,
    type: invalid,
    retryable: false,
    message: 'messages is required and must not be empty',
  },
  empty_message_content: {
    status: 400,
    type: invalid,
    retryable: false,
    message: 'A message has empty or whitespace-only content',
  },
  message_too_long: { status: 400, type: invalid, retryable: false, message: 'A message exceeds the maximum length' },
  request_too_large: { status: 413, type: invalid, retryable: false, message: 'The request body exceeds the size cap' },
  context_window_exceeded: {
    status: 400,
    type: 'context_length_exceeded',
    retryable: false,
    message: 'The prompt exceeds the model context window',
  },
  invalid_temperature: { status: 400, type: invalid, retryable: false, message: 'temperature must be between 0 and 2' },
  invalid_top_p: { status: 400, type: invalid, retryable: false, message: 'top_p must be between 0 and 1' },
  invalid_max_tokens: {
    status: 400,
    type: invalid,
    retryable: false,
    message: "max_tokens must be positive and not above the model's output cap",
  },
  invalid_messages_format: {
    status: 400,
    type: invalid,
    retryable: false,
    message: 'Unsupported message role or content shape',
  },
  invalid_image_payload: {
    status: 400,
    type: invalid,
    retryable: false,
    message: 'An embedded image is malformed or its URL is unreachable',
  },
  invalid_request: { status: 400, type: invalid, retryable: false, message: 'The request is invalid' },
  content_filter: {
    status: 400,
    type: 'content_filter',
    retryable: false,
    message: 'The upstream blocked the content under its safety policy',
  },
  empty_upstream_stream: {
    status: 200,
    type: 'api_error',
    retryable: true,
    message: 'Every upstream closed the stream without a token; nothing was billed',
  },
  provider_unavailable: {
    status: 503,
    type: 'api_error',
    retryable: true,
    message: 'No upstream is currently available for this model',
  },
  no_provider_available: {
    status: 400,
    type: invalid,
    retryable: false,
    message: 'No route serves this combination of model and parameters',
  },
  no_streaming_upstream: {
    status: 503,
    type: 'api_error',
    retryable: true,
    message: 'Only non-streaming upstreams are available; retry without stream',
  },
  upstream_timeout: {
    status: 504,
    type: 'timeout_error',
    retryable: true,
    message: 'The upstream exceeded the time budget',
  },
  render_timeout: {
    status: 504,
    type: 'timeout_error',
    retryable: true,
    message: 'The image render exceeded its time budget; nothing was charged',
  },
  upstream_rate_limit: {
    status: 429,
    type: 'rate_limit_exceeded',
    retryable: true,
    message: 'Every upstream is currently rate-limited',
  },
  upstream_bad_response: {
    status: 502,
    type: 'api_error',
    retryable: false,
    message: 'Every eligible upstream rejected the request',
  },
  upstream_validation_error: {
    status: 400,
    type: invalid,
    retryable: false,
    message: 'The routing layer rejected the payload',
  },
  upstream_server_error: { status: 502, type: 'api_error', retryable: true, message: 'Every eligible upstream failed' },
  gateway_misconfigured: {
    status: 503,
    type: 'api_error',
    retryable: false,
    message: 'The deployment lacks the upstream credentials for this model',
  },
  job_not_found: {
    status: 404,
    type: invalid,
    retryable: false,
    message: 'No such job for this caller, or its record expired',
  },
  internal_error: { status: 500, type: 'api_error', retryable: true, message: 'Internal server error' },
  auth_rate_limited: {
    status: 429,
    type: 'rate_limit_exceeded',
    retryable: true,
    message: 'Too many requests with unknown API keys from this address; retry after the Retry-After seconds',
  },
  tokenizer_busy: {
    status: 503,
    type: 'api_error',
    retryable: true,
    message:
      'Too much long text is waiting to be counted, or counting it took too long; nothing was charged. Retry after the Retry-After seconds',
  },
  key_scope_required: {
    status: 403,
    type: 'permission_error',
    retryable: false,
    message: 'This API key cannot create or revoke keys: it lacks the keys scope',
  },
  account_locked: {
    status: 403,
    type: 'permission_error',
    retryable: false,
    message: 'The account behind this API key is locked by the operator; contact support to have it unlocked',
  },
  file_link_invalid: {
    status: 403,
    type: 'permission_error',
    retryable: false,
    message: 'This file link is not valid: its signature does not match, or it has expired',
  },
  file_not_found: { status: 404, type: invalid, retryable: false, message: 'No such file: it expired and was removed' },
  route_not_found: { status: 404, type: invalid, retryable: false, message: 'No operation at this path' },
  method_not_allowed: {
    status: 405,
    type: invalid,
    retryable: false,
    message: 'This path does not accept this method',
  },
  unsupported_media_type: {
    status: 415,
    type: invalid,
    retryable: false,
    message: 'Send the body as application/json',
  },
  api_key_not_found: {
    status: 404,
    type: invalid,
    retryable: false,
    message: 'No API key with this id belongs to the caller',
  },
  key_spend_limit_reached: {
    status: 402,
    type: 'insufficient_quota',
    retryable: false,
    message:
      'This API key reached its spend limit for the period; it resets at the start of the next period (meta.resets_at)',
  },
  key_rate_limit_above_account: {
    status: 400,
    type: invalid,
    retryable: false,
    message: "A key's rate limit may not exceed the account's own per-minute limit",
  },
  invalid_spend_limit: {
    status: 400,
    type: invalid,
    retryable: false,
    message: 'spend_limit.amount_usd must be above 0, at most 1000000000, with at most 6 decimals',
  },
  usage_record_not_found: {
    status: 404,
    type: invalid,
    retryable: false,
    message: 'No usage record with this id belongs to the caller',
  },
  chat_not_found: {
    status: 404,
    type: invalid,
    retryable: false,
    message: 'No chat with this id belongs to the caller',
  },
  offer_not_found: {
    status: 404,
    type: invalid,
    retryable: false,
    message: 'No such offer is available: unlisted, offline or past its availability',
  },
  instance_not_found: {
    status: 404,
    type: invalid,
    retryable: false,
    message: 'No instance with this id belongs to the caller',
  },
  machine_not_found: {
    status: 404,
    type: invalid,
    retryable: false,
    message: 'No machine with this id belongs to the caller',
  },
  instance_terminated: {
    status: 409,
    type: invalid,
    retryable: false,
    message: 'This rental was deleted and cannot be started again',
  },
  plan_expired: {
    status: 409,
    type: invalid,
    retryable: false,
    message: 'The term of this rental is used up; rent again',
  },
  insufficient_capacity: {
    status: 409,
    type: invalid,
    retryable: false,
    message: 'Fewer GPUs are free under the price caps than the order asks for',
  },
  ssh_key_not_found: {
    status: 404,
    type: invalid,
    retryable: false,
    message: 'No SSH key with this id belongs to the caller',
  },
  burst_order_not_found: {
    status: 404,
    type: invalid,
    retryable: false,
    message: 'No burst order with this id belongs to the caller',
  },
  volume_not_found: {
    status: 404,
    type: invalid,
    retryable: false,
    message: 'No volume with this id belongs to the caller, or it was deleted',
  },
  volume_in_use: {
    status: 409,
    type: invalid,
    retryable: false,
    message: 'The volume is attached to a rental that is not deleted, or was pinned to another machine',
  },
  price_above_max: {
    status: 409,
    type: invalid,
    retryable: false,
    message: "The offer's price per GPU-hour is above max_price_per_gpu_hour",
  },
  too_many_pending_rentals: {
    status: 409,
    type: invalid,
    retryable: false,
    message: 'Too many rentals of this account are waiting for their machine to run them',
  },
  too_many_unverified_machines: {
    status: 409,
    type: invalid,
    retryable: false,
    message: 'Too many machines of this account are listed without verification',
  },
  instance_not_running: {
    status: 409,
    type: invalid,
    retryable: false,
    message: 'This rental is stopped; start it to get its SSH port back',
  },
  rental_unavailable: { status: 410, type: invalid, retryable: false, message: 'The rental was taken by someone else' },
  resources_unavailable: {
    status: 409,
    type: invalid,
    retryable: false,
    message: 'The GPU of this rental is no longer available',
  },
  idempotency_conflict: {
    status: 409,
    type: invalid,
    retryable: false,
    message: 'This idempotency key was used with a different request',
  },
  not_ready: { status: 503, type: 'api_error', retryable: true, message: 'A dependency is unreachable' },
  invalid_email: { status: 400, type: invalid, retryable: false, message: 'Not a valid email address' },
  weak_password: {
    status: 400,
    type: invalid,
    retryable: false,
    message: 'The password must be 12 to 256 characters long and not a common one',
  },
  invalid_link: {
    status: 400,
    type: invalid,
    retryable: false,
    message: 'This link is not valid: it was used, has expired, or no longer matches the account; ask for a new one',
  },
  invalid_credentials: {
    status: 401,
    type: invalid,
    retryable: false,
    message: 'The email address or password is wrong',
  },
  totp_required: {
    status: 401,
    type: invalid,
    retryable: false,
    message: 'This account has a second factor: send its code (or a recovery code) in totp',
  },
  invalid_totp: {
    status: 401,
    type: invalid,
    retryable: false,
    message: 'The second-factor code is wrong, expired or already used',
  },
  invalid_session: {
    status: 401,
    type: invalid,
    retryable: false,
    message: 'The session is unknown, expired or revoked: sign in again',
  },
  email_unconfirmed: {
    status: 403,
    type: 'permission_error',
    retryable: false,
    message: 'Confirm your email address first: follow the link we sent, or ask for another',
  },
  session_required: {
    status: 403,
    type: 'permission_error',
    retryable: false,
    message: 'This operation needs a signed-in session (Authorization: Bearer <ACCESS_TOKEN>), not an API key',
  },
  session_not_accepted: {
    status: 403,
    type: 'permission_error',
    retryable: false,
    message: "This operation takes an API key; a session token works only on the account's own operations",
  },
  origin_mismatch: {
    status: 403,
    type: 'permission_error',
    retryable: false,
    message: "A change made with the session cookie must come from this service's own pages (Origin header)",
  },
  totp_already_enabled: {
    status: 409,
    type: invalid,
    retryable: false,
    message: 'A second factor is already set: disable it before enrolling another',
  },
  totp_not_enabled: { status: 409, type: invalid, retryable: false, message: 'This account has no second factor' },
  account_not_empty: {
    status: 409,
    type: invalid,
    retryable: false,
    message: 'The account cannot be deleted while its balance is not zero or a rental is running',
  },
  account_in_debt: {
    status: 402,
    type: 'insufficient_quota',
    retryable: false,
    message: 'A refund or a lost dispute took back money this account had spent; a deposit repays it first',
  },
  payment_processor_refused: {
    status: 502,
    type: 'api_error',
    retryable: false,
    message: 'The payment processor refused to open the checkout; nothing was charged',
  },
  deposit_not_found: {
    status: 404,
    type: invalid,
    retryable: false,
    message: 'No deposit with this id belongs to the account',
  },
  invalid_deposit: {
    status: 400,
    type: invalid,
    retryable: false,
    message: 'A card deposit takes amount_usd, an SBP deposit amount_rub, a USDT deposit neither',
  },
  payment_rail_unavailable: {
    status: 503,
    type: 'api_error',
    retryable: true,
    message: 'This payment method is not available on this service right now',
  },
  webhook_rejected: {
    status: 400,
    type: invalid,
    retryable: false,
    message: 'The webhook could not be proven to come from the payment processor',
  },
  session_not_found: {
    status: 404,
    type: invalid,
    retryable: false,
    message: 'No live session with this id belongs to the account',
  },
  withdrawal_not_found: {
    status: 404,
    type: invalid,
    retryable: false,
    message: 'No withdrawal with this id belongs to the account',
  },
  withdrawal_address_not_found: {
    status: 404,
    type: invalid,
    retryable: false,
    message: "No withdrawal address with this id is in the account's address book",
  },
  invalid_withdrawal_address: {
    status: 400,
    type: invalid,
    retryable: false,
    message: 'This is not an address a withdrawal can be sent to',
  },
  withdrawal_address_taken: {
    status: 409,
    type: invalid,
    retryable: false,
    message: "This address is already in the account's address book",
  },
  withdrawal_address_cooling: {
    status: 409,
    type: invalid,
    retryable: false,
    message: 'This address was added recently: withdrawals to it open at meta.usable_from',
  },
  invalid_withdrawal: {
    status: 400,
    type: invalid,
    retryable: false,
    message: 'A withdrawal is between meta.min_usd and meta.max_usd',
  },
  insufficient_withdrawable: {
    status: 402,
    type: 'insufficient_quota',
    retryable: false,
    message: 'Only provider earnings past their hold period can be withdrawn; meta.withdrawable_usd is what can be now',
  },
  withdrawal_limit_reached: {
    status: 429,
    type: 'rate_limit_exceeded',
    retryable: true,
    message: 'The daily withdrawal limit is reached; meta.remaining_usd is what is left of it today',
  },
  second_factor_required: {
    status: 403,
    type: 'permission_error',
    retryable: false,
    message:
      'Withdrawals need a second factor: enrol one with POST /v1/auth/totp and confirm it, then send its code in `totp`',
  },
} as const satisfies Record<ErrorCode, ErrorSpec>;

/** The native envelope's short `message`, in Russian (SPEC 2.7), by HTTP status class. */
export function russianMessage(status: number): string {
  if (status === 401) return 'Требуется действительный API-ключ';
  if (status === 402) return 'Недостаточно средств на балансе';
  if (status === 404) return 'Не найдено';
  if (status === 429) return 'Слишком много запросов, повторите позже';
  if (status >= 500) return 'Временная ошибка сервиса, повторите позже';
  return 'Некорректный запрос';
}
