import { defineConfig } from 'vitest/config';

// DESIGN.md 5: one project per kind of test, so `vitest run --project unit` runs just the fast ones.
// A hook may start gateway processes (integration): on a loaded machine each can take tens of seconds to compile and
// listen, so a hook gets as long as its project's tests, and never less than 30 s.
const project = (name: string, timeoutMs = 10_000) => ({
  test: {
    name,
    include: [`test/${name}/**/*.test.ts`],
    testTimeout: timeoutMs,
    hookTimeout: Math.max(30_000, timeoutMs * 2),
  },
});

export default defineConfig({
  test: {
    projects: [
      project('unit'),
      // DESIGN.md 5, contract:live: every response of the contract tier is checked by Prism as well.
      {
        test: {
          ...project('contract').test,
          globalSetup: ['test/setup/prism/global-setup.ts'],
          setupFiles: ['test/setup/prism/hooks.ts'],
        },
      },
      project('adapters', 20_000),
      project('integration', 60_000),
      project('sdk', 20_000),
      project('cli', 60_000),
    ],
  },
});
