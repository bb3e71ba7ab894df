/**
 * What every command needs from the global options: the output mode and a `ComputeGateway` for the selected
 * profile. The key is read only when a command needs one, so `cgw models` works before `cgw login`.
 */
import { ComputeGateway } from '@compute-gateway/sdk';
import { type Command, InvalidArgumentError } from 'commander';
import { resolveProfile } from './config.js';
import { notLoggedIn } from './errors.js';

export interface GlobalOptions {
  json?: boolean;
  profile?: string;
  baseUrl?: string;
}

export interface Context {
  json: boolean;
  /** Progress and spinners: only for a person watching stderr, never mixed into JSON. */
  interactive: boolean;
  profile: string;
  baseUrl: string;
  gateway: ComputeGateway;
}

export function globals(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

/** `keyRequired: false` for the public catalog: the key, when there is one, still shows the caller's prices. */
export async function context(command: Command, keyRequired = true): Promise<Context> {
  const options = globals(command);
  const resolved = await resolveProfile(options);
  if (keyRequired && resolved.apiKey === undefined) throw notLoggedIn(resolved.profile);
  const json = options.json === true;
  return {
    json,
    interactive: !json && process.stderr.isTTY === true,
    profile: resolved.profile,
    baseUrl: resolved.baseUrl,
    gateway: new ComputeGateway({
      baseUrl: resolved.baseUrl,
      ...(resolved.apiKey === undefined ? {} : { apiKey: resolved.apiKey }),
    }),
  };
}

/** Parses a number flag; commander reports a bad one as a usage error (exit 2). */
export function numberOption(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (value.trim() === '' || !Number.isFinite(parsed)) {
      throw new InvalidArgumentError(`${name} must be a number, got "${value}"`);
    }
    return parsed;
  };
}
