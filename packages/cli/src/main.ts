#!/usr/bin/env node
/**
 * cgw: the compute-gateway API from a terminal (DESIGN.md 12), built on @compute-gateway/sdk.
 */
import { createRequire } from 'node:module';
import { Command } from 'commander';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

await new Command('cgw').version(version).description('The compute-gateway API from the terminal').parseAsync();
