import { ApiError } from '../errors/api-error.js';
import type { Principal } from '../domain/authenticator.js';

/** For operations whose contract requires a key; the auth middleware has already refused requests without one. */
export function requirePrincipal(principal: Principal | null): Principal {
  if (principal === null) throw new ApiError('authentication_required');
  return principal;
}
