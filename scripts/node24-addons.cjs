// Preloaded (NODE_OPTIONS=--require) into every process of the Node 24 test run, scripts/node24-tiers.sh.
//
// node_modules holds native addons compiled from source for the Node that installed it (better-sqlite3, and ssh2's
// and cpu-features' optional ones): Node 24 refuses them (another NODE_MODULE_VERSION). node24-tiers.sh builds
// copies of those packages for Node 24 under $NODE24_ADDONS/<node version>/node_modules, mirroring node_modules,
// and this hook makes Node load the copy wherever it would load the original. It sits under every loader
// (`bindings`, `require('./x.node')`, worker threads, child processes), so neither node_modules nor our code
// changes; under any other Node the directory does not exist and nothing is redirected. process.dlopen is public.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const rebuilt = process.env.NODE24_ADDONS
  ? path.join(process.env.NODE24_ADDONS, process.version, 'node_modules')
  : null;

if (rebuilt !== null && fs.existsSync(rebuilt)) {
  // An addon is opened by its real path: node_modules itself, or where its symlink leads (a worktree's).
  const installed = path.join(__dirname, '..', 'node_modules');
  const prefixes = [...new Set([installed, fs.realpathSync(installed)])].map((dir) => dir + path.sep);
  const dlopen = process.dlopen;
  process.dlopen = function dlopenRebuilt(module, filename, ...flags) {
    const prefix = prefixes.find((p) => filename.startsWith(p));
    const copy = prefix === undefined ? null : path.join(rebuilt, filename.slice(prefix.length));
    return dlopen.call(this, module, copy !== null && fs.existsSync(copy) ? copy : filename, ...flags);
  };
}
