/**
 * An undici Agent that connects only to addresses an AddressPolicy permits (address-policy.ts), for every outbound
 * call whose address is user input (media links, Docker registries and the token realms they name), so none becomes
 * a way into loopback, the private network or cloud metadata (SSRF): a name resolves only to permitted addresses
 * (no connection is even tried to the others), and the address actually connected to is judged again, so a name
 * that resolves differently the second time (DNS rebinding) is refused too.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction, Socket } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { AddressPolicy } from './address-policy.js';

/** A refusal by the address policy, recognisable wherever undici wraps it. */
export class BlockedAddress extends Error {
  readonly code = 'ERR_ADDRESS_BLOCKED';
}

export function guardedAgent(policy: AddressPolicy, connectTimeoutMs: number): Agent {
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    dnsLookup(hostname, { ...lookupOptions, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const permitted = addresses.filter((a) => policy.permits(a.address));
      if (permitted.length === 0)
        return callback(new BlockedAddress(`${hostname} resolves only to refused addresses`), '', 0);
      if (lookupOptions.all) return (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, permitted);
      callback(null, permitted[0]!.address, permitted[0]!.family);
    });
  };
  const base = buildConnector({ timeout: connectTimeoutMs, lookup } as buildConnector.BuildOptions);
  return new Agent({
    connect: (connectOptions, callback) =>
      base(connectOptions, (err, socket) => {
        if (err !== null) return callback(err, null);
        const remote = (socket as Socket).remoteAddress ?? '';
        if (policy.permits(remote)) return callback(null, socket);
        socket.destroy();
        callback(new BlockedAddress(`connected to ${remote}, a refused address`), null);
      }),
  });
}

/** An IP literal in a URL is judged before any connection is tried (Node does not look literals up). */
export function assertPermittedHost(url: URL, policy: AddressPolicy): void {
  if (AddressPolicy.isLiteral(url.hostname) && !policy.permits(url.hostname))
    throw new BlockedAddress(`${url.hostname} is a refused address`);
}

/** Whether `error`, or what it wraps, is a policy refusal. */
export function isBlocked(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (e instanceof BlockedAddress) return true;
  }
  return false;
}
