#!/usr/bin/env node
/**
 * cgw: the compute-gateway API from a terminal (DESIGN.md 12), built on @compute-gateway/sdk and talking to the
 * API only. Global options (`--json`, `--profile`, `--base-url`) work before or after the command; every failure
 * ends here and leaves as one line on stderr with an exit code by class (errors.ts).
 */
import { createRequire } from 'node:module';
import { Command } from 'commander';
import { registerAccount } from './commands/account.js';
import { registerBurst } from './commands/burst.js';
import { registerCatalog } from './commands/catalog.js';
import { registerChat } from './commands/chat.js';
import { registerKeys } from './commands/keys.js';
import { registerMarket } from './commands/market.js';
import { registerMedia } from './commands/media.js';
import { registerPayments } from './commands/payments.js';
import { registerRestore } from './commands/restore.js';
import { registerSsh } from './commands/ssh.js';
import { registerUsage } from './commands/usage.js';
import { registerVideo } from './commands/video.js';
import { registerVolumes } from './commands/volumes.js';
import { exitCodeFor, formatError } from './errors.js';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

function program(): Command {
  const root = new Command('cgw')
    .version(version)
    .description('The compute-gateway API from the terminal: models, jobs, GPUs, usage, keys and payments')
    .option('--json', 'print the answer as JSON instead of a table')
    .option('--profile <name>', 'the saved profile to use (default: $CGW_PROFILE or "default")')
    .option('--base-url <url>', "the service to talk to (default: the profile's, $CGW_BASE_URL)")
    .configureHelp({ showGlobalOptions: true })
    .showSuggestionAfterError()
    // Subcommands inherit this: a bad flag throws instead of exiting, so it gets exit code 2 (errors.ts).
    .exitOverride();
  for (const register of [
    registerAccount,
    registerKeys,
    registerCatalog,
    registerChat,
    registerUsage,
    registerMedia,
    registerVideo,
    registerRestore,
    registerMarket,
    registerSsh,
    registerBurst,
    registerVolumes,
    registerPayments,
  ])
    register(root);
  return root;
}

async function main(): Promise<void> {
  try {
    await program().parseAsync();
  } catch (error) {
    const code = exitCodeFor(error);
    // commander has printed its own message (or the help) already.
    if (!(error instanceof Error && error.name === 'CommanderError')) process.stderr.write(`${formatError(error)}\n`);
    process.exitCode = code;
  }
}

await main();
