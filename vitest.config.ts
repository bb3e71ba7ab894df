import { defineConfig } from 'vitest/config';

// DESIGN.md 5: one project per kind of test, so `vitest run --project unit` runs just the fast ones.
const project = (name: string, timeoutMs = 10_000) => ({
  test: { name, include: [`test/${name}/**/*.test.ts`], testTimeout: timeoutMs, hookTimeout: 30_000 },
});

export default defineConfig({
  test: {
    projects: [
      project('unit'),
      project('contract'),
      project('adapters', 20_000),
      project('integration', 60_000),
      project('sdk', 20_000),
    ],
  },
});
