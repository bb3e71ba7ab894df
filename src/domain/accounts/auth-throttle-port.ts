/**
 * The attempts sign-in and its mails may make (issue 26 item 5): each call counts one attempt in sliding windows
 * per client address and per email address, shared by every gateway process, and throws 429 `auth_rate_limited`
 * with Retry-After when a window is full. The same for registered and unknown addresses.
 */
export interface AuthThrottle {
  signIn(address: string, email: string): Promise<void>;
  signUp(address: string): Promise<void>;
  /** A mail asked for: a confirmation sent again, a reset link, a new address's link. */
  mailRequest(address: string, email: string): Promise<void>;
  /** A token from a mailed link presented (confirm, reset). */
  linkAttempt(address: string): Promise<void>;
}
