/**
 * The server-secrets port: secrets the service makes for itself when the operator configured none (the account
 * links' key, ACCOUNT_LINK_SECRET). The first process to ask makes the value; every later ask, in any process on
 * the same store, gets that one, so a restart keeps links valid and a fleet signs alike.
 */
export interface ServerSecrets {
  /** The secret named `name`; `make` is called to propose a value, which is kept only if none was kept before. */
  getOrCreate(name: string, make: () => string, nowMs: number): Promise<string>;
}
