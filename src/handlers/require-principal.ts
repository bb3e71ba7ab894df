import type { Principal } from '../domain/keys/authenticator.js';
import { ApiError } from '../errors/api-error.js';

/** For operations whose contract requires a key; the auth middleware has already refused requests without one. */
export function requirePrincipal(principal: Principal | null): Principal {
  if (principal === null) throw new ApiError('authentication_required');
  return principal;
}

/** Creating and revoking keys takes the `keys` scope (docs/decisions.md: API keys). */
export function requireKeyManager(principal: Principal | null): Principal {
  const caller = requirePrincipal(principal);
  if (!caller.managesKeys) throw new ApiError('key_scope_required');
  return caller;
}
