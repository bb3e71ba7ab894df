/**
 * What a user of @compute-gateway/sdk gets (SPEC 9.5): the packed tarball installs into an empty project, its
 * types compile under `strict` through the package's `exports`, and a program written against it calls a live
 * gateway: the catalog, a chat stream, an image job to completion, the marketplace's offers.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../setup/harness.js';
import { type PackedProject, packAndInstall, REPO, run } from '../setup/packed-package.js';

const PROGRAM = `
import { ComputeGateway, GatewayError, getModelCatalog, listOffers, type Offer } from '@compute-gateway/sdk';

// The consumer project has no @types/node: the program declares the one Node.js global it reads.
declare const process: { argv: string[] };
const [baseUrl, apiKey] = process.argv.slice(2);
const gateway = new ComputeGateway({ baseUrl, apiKey });
const catalog = await gateway.call(getModelCatalog);
let text = '';
for await (const chunk of gateway.streamChat({ model: 'gpt-5-mini', messages: [{ role: 'user', content: 'Hi' }] })) {
  text += chunk.choices[0]?.delta.content ?? '';
}
const job = await gateway.runJob('image', { model: 'imgG-4o', prompt: 'Fog over a harbour' }, { intervalMs: 200 });
const offers: Offer[] = (await gateway.call(listOffers, { query: { limit: 3, sort: 'price' } })).data.offers;
let refused = '';
try {
  await new ComputeGateway({ baseUrl, apiKey: 'cgw_unknown' }).call(listOffers);
} catch (error) {
  if (error instanceof GatewayError) refused = error.code;
}
console.log(JSON.stringify({ models: catalog.data.models.length, text, job: job.status, images: job.images?.length, offers: offers.length, refused }));
`;

const TSCONFIG = JSON.stringify({
  compilerOptions: {
    strict: true,
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    types: [],
    outDir: 'out',
  },
  files: ['program.ts'],
});

declare const process: { argv: string[] };

let h: Harness;
let project: PackedProject;

beforeAll(async () => {
  [h, project] = await Promise.all([
    startHarness(),
    packAndInstall('sdk', { 'program.ts': PROGRAM, 'tsconfig.json': TSCONFIG }),
  ]);
}, 300_000);

afterAll(async () => {
  await h?.close();
  if (project) rmSync(project.dir, { recursive: true, force: true });
});

describe('@compute-gateway/sdk from its tarball', () => {
  it('ships its build, types, README and CHANGELOG, and no sources or tests', () => {
    expect(project.files).toEqual(
      expect.arrayContaining(['package.json', 'README.md', 'CHANGELOG.md', 'dist/index.js', 'dist/index.d.ts']),
    );
    expect(
      project.files.filter((f) => !f.startsWith('dist/') && !/^(package\.json|README\.md|CHANGELOG\.md)$/.test(f)),
    ).toEqual([]);
  });

  it('compiles a strict program against its types and calls a live gateway with it', async () => {
    const tsc = join(REPO, 'node_modules', '.bin', 'tsc');
    await run(tsc, ['-p', 'tsconfig.json'], { cwd: project.dir });
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 20 });
    const { stdout } = await run('node', ['out/program.js', h.baseUrl, apiKey], { cwd: project.dir, timeout: 120_000 });
    const result = JSON.parse(stdout) as Record<string, unknown>;
    expect(result['models']).toBeGreaterThanOrEqual(370);
    expect(String(result['text']).length).toBeGreaterThan(0);
    expect(result).toMatchObject({ job: 'completed', images: 1, refused: expect.stringMatching(/api_key/) });
    expect(result['offers']).toBeGreaterThanOrEqual(0);
  }, 180_000);
});
