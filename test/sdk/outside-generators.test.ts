/**
 * Clients from three generators the project does not otherwise use (openapi-typescript-codegen, orval,
 * swagger-typescript-api), each generated from the bundled contract with no hand edit, compiled with a small program
 * in strict mode and run against a live gateway: the contract serves a client team whichever generator it picks,
 * not only the one `make generate` runs (test/sdk/generated-client.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../setup/harness.js';
import { compile, inTempFolder, runProgram, writeFiles, writeStrictProject } from '../setup/outside-generators.js';
import { OUTSIDE_GENERATORS, type ProgramOutput } from '../setup/outside-generators-clients.js';

/** Generating, compiling about 0.5 MB of generated code and running takes seconds alone, far longer on a busy machine. */
const LIMIT_MS = 180_000;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, LIMIT_MS);
afterAll(() => h.close());

// Side by side: each generator and each compile is a process of its own.
describe.concurrent('clients from outside generators', () => {
  for (const generator of OUTSIDE_GENERATORS) {
    it(
      `${generator.tool}: generated, compiled strictly, and calls the gateway`,
      async () => {
        const { apiKey } = await h.newAccount();
        await inTempFolder(generator.tool, async (dir) => {
          await writeStrictProject(dir);
          await writeFiles(dir, generator.program);

          const generated = await generator.generate(dir);
          expect(generated.code, generated.stdout + generated.stderr).toBe(0);
          expect(generator.complaints(generated)).toEqual(generator.knownComplaints);

          const compiled = await compile(dir);
          expect(compiled.stdout + compiled.stderr).toBe('');
          expect(compiled.code).toBe(0);

          const ran = await runProgram(dir, { baseUrl: h.baseUrl, apiKey });
          expect(ran.code, ran.stderr).toBe(0);
          expect(ran.stdout).toMatch(/^[^\n]+\n$/);
          const output = JSON.parse(ran.stdout) as ProgramOutput;
          expect(output.models).toBeGreaterThanOrEqual(370);
          expect(output.created).toBe(`from-${generator.tool}`);
          // The account's opening key and the one just created.
          expect(output.names).toHaveLength(2);
          expect(output.names).toContain(output.created);
          expect(output).toMatchObject({ status: 401, errorCode: 'invalid_api_key' });
        });
      },
      LIMIT_MS,
    );
  }
});
