import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The repository root, whether this code runs from src/ (tsx, tests) or from the compiled dist/src/: the
 * bundled contract lives in generated/ at the root in both cases.
 */
function findProjectRoot(): string {
  for (const up of ['../../', '../../../']) {
    const candidate = fileURLToPath(new URL(up, import.meta.url));
    if (existsSync(`${candidate}package.json`)) return candidate;
  }
  throw new Error('compute-gateway: cannot find the project root (package.json) above src/lib/');
}

export const PROJECT_ROOT = findProjectRoot();
