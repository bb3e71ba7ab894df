// The SDK ships the client generated from the contract (`make generate` writes generated/client). It is copied in
// at build rather than committed twice, so the contract stays the one source (DESIGN.md 12).
import { cpSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'src', 'generated');
rmSync(target, { recursive: true, force: true });
cpSync(join(root, '..', '..', 'generated', 'client'), target, { recursive: true });
