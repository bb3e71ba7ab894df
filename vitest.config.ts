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
      project('contract'),
      project('adapters', 20_000),
      project('integration', 60_000),
      project('sdk', 20_000),
      project('cli', 60_000),
    ],
  },
});
