/**
 * The floors of DESIGN.md 2, held by test (after TigerBeetle's tidy.zig): imports go down the layers (handlers →
 * domain → adapters → db/lib), adapters never import the domain, the domain reaches adapters through their ports
 * (`adapters/<port>/index.ts`) only, http never imports the domain's billing; files stay within 300 lines and
 * functions within 70 (DESIGN.md 6). Each allow-list below names today's exceptions with a reason; it may only
 * shrink: an entry that no longer applies fails the test too, so it is removed when its exception is fixed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/lib/project-root.js';

const MAX_FILE_LINES = 300;
const MAX_FUNCTION_LINES = 70;

/** Media plans call the codecs' functions directly; they are to be passed in through the codec ports. */
const CODEC = 'probes and encodes through the codec functions, not yet injected';

/** `importer -> imported` (paths from the root) → why it is still allowed. */
const IMPORT_EXCEPTIONS: Readonly<Record<string, string>> = {
  'src/domain/chat/stream-events.ts -> src/adapters/upstream/openai-usage.ts': 'usage parsing not yet in the port',
  'src/domain/images/image-generation.ts -> src/adapters/image-codec/sharp-images.ts': CODEC,
  'src/domain/images/references.ts -> src/adapters/image-codec/sharp-images.ts': CODEC,
  'src/domain/media/media-jobs.ts -> src/adapters/image-codec/sharp-images.ts': CODEC,
  'src/domain/media/media-jobs.ts -> src/adapters/video-codec/video-files.ts': CODEC,
  'src/domain/media/music-plan.ts -> src/adapters/audio-codec/audio-files.ts': CODEC,
  'src/domain/media/restoration-plan.ts -> src/adapters/image-codec/sharp-images.ts': CODEC,
  'src/domain/media/restoration-plan.ts -> src/adapters/video-codec/video-files.ts': CODEC,
  'src/domain/media/speech-plan.ts -> src/adapters/audio-codec/audio-files.ts': CODEC,
  'src/domain/media/video-plan.ts -> src/adapters/video-codec/video-files.ts': CODEC,
  'src/domain/usage/usage-aggregates.ts -> src/adapters/usage-log/totals.ts': 'usage totals shared with both logs',
  'src/http/bind-operations.ts -> src/domain/billing/idempotency.ts': 'the Idempotency-Key binding replays responses',
  'src/http/chat-chunk-format.ts -> src/domain/billing/money.ts': 'formats cost in the usage chunk; belongs in lib',
  'src/lib/outbound-http.ts -> src/adapters/upstream/index.ts': 'throws the upstream port’s error; to move to lib',
};

/** Files over MAX_FILE_LINES → why. */
const LONG_FILES: Readonly<Record<string, string>> = {
  'src/adapters/ledger/operations.ts': 'every in-memory ledger operation beside its rule; to split by operation',
  'src/adapters/market-store/index.ts': 'the market port: one record type per table it keeps',
  'src/adapters/market-store/memory.ts': 'the in-memory twin of sql.ts, method for method',
  'src/adapters/market-store/sql.ts': 'every market query of one port; to split by record (machines, rentals)',
  'src/adapters/upstream/sandbox.ts': 'the sandbox answers every surface (text, embeddings, rerank, media)',
  'src/cli/admin.ts': 'the operator CLI: one argument parser and its command table',
  'src/domain/billing/billing.ts': 'reserve, settle and release of one Billing class with its lease path',
  'src/domain/market/burst-orders.ts': 'placing, estimating and checking a burst order over many machines',
  'src/domain/market/rentals.ts': 'a rental’s life (start, stop, settle, sweep) in one class',
  'src/domain/media/media-jobs.ts': 'the media job lifecycle (kickoff, render, poll, deliver) in one class',
  'src/domain/text/chat-validation.ts': 'every body rule for chat, embeddings and rerank the schema cannot say',
  'src/errors/catalog.ts': 'the error catalog: one entry per code (SPEC 7)',
  'src/lib/outbound-http.ts': 'the shared outbound client with its SSRF-safe dispatcher',
};

/** `file: function` over MAX_FUNCTION_LINES → why. */
const LONG_FUNCTIONS: Readonly<Record<string, string>> = {
  'src/db/migrations/0011-marketplace.ts: up': 'one migration’s schema; migrations are never edited',
  'src/domain/media/media-jobs.ts: start': 'kickoff: checks, hold, hosting inputs and the job record in order',
  'src/domain/media/media-jobs.ts: render': 'the render loop with its route failover and stall watchdog',
  'src/domain/media/video-plan.ts: planVideo': 'every video field rule of SPEC 2.12 in the order they are checked',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(join(PROJECT_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The server, and the packages users install (their copy of generated/client aside). */
const checked = [
  ...sourceFiles('src'),
  ...sourceFiles('packages/sdk/src').filter((path) => !path.startsWith('packages/sdk/src/generated/')),
  ...sourceFiles('packages/cli/src'),
];
const files = checked.map((path) => {
  const text = readFileSync(join(PROJECT_ROOT, path), 'utf8');
  return { path, text, source: ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true) };
});

/** The floor a file stands on: its folder under src/, a port (`adapters/<port>/index.ts`), or config/entry files. */
function floor(path: string): string {
  if (path.startsWith('generated/')) return 'generated';
  const workspace = /^packages\/([^/]+)\//.exec(path)?.[1];
  if (workspace !== undefined) return `package:${workspace}`; // installed on their own: nothing from outside
  if (/^src\/config(-[a-z-]+)?\.ts$/.test(path)) return 'config'; // config.ts and its parts (config-accounts.ts)
  if (path === 'src/main.ts' || path === 'src/app.ts') return 'entry';
  if (/^src\/adapters\/[^/]+\/index\.ts$/.test(path)) return 'port';
  return /^src\/([^/]+)\//.exec(path)?.[1] ?? 'other';
}

/**
 * What each floor may import (generated/ is open to all). Handlers and http see composition for the `Deps` type
 * only. Floors not listed (composition, entry, agent, cli) wire or run the rest and may import anything.
 */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  lib: ['lib'],
  runtime: ['runtime', 'lib', 'config'],
  config: ['config', 'runtime', 'lib'],
  db: ['db', 'lib'],
  errors: ['errors', 'lib'],
  adapters: ['adapters', 'port', 'db', 'lib', 'errors', 'runtime'],
  port: ['adapters', 'port', 'db', 'lib', 'errors'],
  domain: ['domain', 'port', 'lib', 'errors'],
  http: ['http', 'port', 'domain', 'errors', 'lib', 'config', 'composition'],
  handlers: ['handlers', 'http', 'domain', 'port', 'errors', 'lib', 'config', 'composition'],
  'package:sdk': ['package:sdk'],
  'package:cli': ['package:cli'],
};

function allowedImport(importer: string, imported: string, typeOnly: boolean): boolean {
  const from = floor(importer);
  const to = floor(imported);
  const rules = MAY_IMPORT[from];
  if (rules === undefined || to === 'generated') return true;
  if (from === 'config' && imported === 'src/domain/limits.ts') return true; // defaults are SPEC 8 numbers
  if (from === 'http' && imported.startsWith('src/domain/billing/')) return false; // http never prices or holds
  if ((from === 'http' || from === 'handlers') && to === 'composition') return typeOnly;
  return rules.includes(to);
}

function importViolations(): string[] {
  const found: string[] = [];
  for (const { path, source } of files) {
    for (const statement of source.statements) {
      if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue;
      const specifier = statement.moduleSpecifier;
      if (specifier === undefined || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue;
      const imported = normalize(join(dirname(path), specifier.text)).replace(/\.js$/, '.ts');
      const typeOnly = ts.isImportDeclaration(statement) && statement.importClause?.isTypeOnly === true;
      if (!allowedImport(path, imported, typeOnly)) found.push(`${path} -> ${imported}`);
    }
  }
  return found;
}

function lineCount(text: string): number {
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function longFunctions(): string[] {
  const found: string[] = [];
  for (const { path, source } of files) {
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
        const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        const name = node.name === undefined ? '<anonymous>' : node.name.getText(source);
        if (last - first + 1 > MAX_FUNCTION_LINES) found.push(`${path}: ${name}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** New offenders fail; so do allow-list entries that no longer offend (the list only shrinks). */
function expectOnlyListed(found: string[], allowList: Readonly<Record<string, string>>): void {
  const listed = new Set(Object.keys(allowList));
  expect(
    found.filter((entry) => !listed.has(entry)),
    'not allowed (fix it, do not list it)',
  ).toEqual([]);
  expect(
    [...listed].filter((entry) => !found.includes(entry)),
    'fixed: remove from the allow-list',
  ).toEqual([]);
}

describe('tidy: the floors of DESIGN.md 2', () => {
  it('imports go down the floors; adapters never import the domain, the domain only ports', () => {
    expectOnlyListed(importViolations(), IMPORT_EXCEPTIONS);
  });

  it(`files have at most ${MAX_FILE_LINES} lines`, () => {
    const long = files.filter(({ text }) => lineCount(text) > MAX_FILE_LINES).map(({ path }) => path);
    expectOnlyListed(long, LONG_FILES);
  });

  it(`functions have at most ${MAX_FUNCTION_LINES} lines`, () => {
    expectOnlyListed(longFunctions(), LONG_FUNCTIONS);
  });
});
