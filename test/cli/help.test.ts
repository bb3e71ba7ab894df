/**
 * `--help` works on every command and subcommand of the built `cgw` (exits 0, prints its usage line), found by
 * walking the help's own command lists, so a command added later is covered without touching this test.
 */
import { describe, expect, it } from 'vitest';
import { cgw, ensureBuilt, tempHome } from './cgw.js';

/** The command names under "Commands:" in a help text (the built-in `help` left out). */
function subcommands(help: string): string[] {
  const section = help.split(/^Commands:\n/m)[1] ?? '';
  return section
    .split('\n')
    .map((line) => /^ {2}([a-z][a-z-]*)/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined && name !== 'help');
}

describe('cgw --help', () => {
  it('every command and subcommand answers --help with exit 0 and its usage', async () => {
    await ensureBuilt();
    const home = await tempHome();
    try {
      const seen: string[] = [];
      let level: string[][] = [[]];
      while (level.length > 0) {
        const results = await Promise.all(level.map((path) => cgw([...path, '--help'], { env: home.env })));
        const next: string[][] = [];
        results.forEach((result, index) => {
          const path = level[index] ?? [];
          expect(result.code, `cgw ${path.join(' ')} --help`).toBe(0);
          expect(result.stdout).toMatch(new RegExp(`^Usage: cgw ${path.join(' ')}`));
          seen.push(path.join(' '));
          for (const name of subcommands(result.stdout)) next.push([...path, name]);
        });
        level = next;
      }
      for (const command of ['login', 'models', 'chat', 'embed', 'image', 'video', 'video final', 'music', 'speech']) {
        expect(seen).toContain(command);
      }
      for (const command of [
        'restore',
        'usage',
        'balance',
        'offers',
        'rent',
        'instances stop',
        'ssh',
        'burst estimate',
      ]) {
        expect(seen).toContain(command);
      }
      for (const command of ['volumes create', 'keys revoke', 'deposit', 'withdraw', 'logout']) {
        expect(seen).toContain(command);
      }
      expect((await cgw(['--version'], { env: home.env })).code).toBe(0);
      const unknown = await cgw(['frobnicate'], { env: home.env });
      expect(unknown.code).toBe(2);
    } finally {
      await home.cleanup();
    }
  });
});
