/**
 * `cgw image|speech|restore` against a live server on the sandbox upstream: the job is started, waited for and its
 * files are saved where asked, with real image and audio bytes; and once in a real terminal (tmux), where the
 * progress bar shows on stderr before the saved path.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollUntil } from '../setup/polling.js';
import { CGW, cgw, type MediaSession, mediaSession } from './cgw.js';

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let session: MediaSession;
let home: MediaSession['home'];
let env: Record<string, string>;
beforeAll(async () => {
  session = await mediaSession(20);
  ({ home, env } = session);
});
afterAll(() => session?.close());

describe('cgw image', () => {
  it('runs the job and saves the image to -o; prints the path and the cost', async () => {
    const out = join(home.dir, 'lighthouse.png');
    const result = await cgw(['image', '-m', 'imgG-4o', '-o', out, 'A lighthouse at dawn'], { env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`saved ${out}`);
    expect(result.stdout).toMatch(/job job_\S+ \(imgG-4o\S*\): cost \$\d+\.\d+/);
    expect((await readFile(out)).subarray(0, 8)).toEqual(PNG_MAGIC);
  });

  it('with several images and no -o, names them <job_id>-<n>.<ext> in the current dir; --json lists them', async () => {
    const result = await cgw(['image', '-m', 'imgG-2', '-n', '2', '--format', 'jpeg', '--json', 'Dunes'], {
      env,
      cwd: home.dir,
    });
    expect(result.code).toBe(0);
    const job = JSON.parse(result.stdout);
    expect(job.status).toBe('completed');
    expect(job.files).toEqual([`${job.job_id}-1.jpg`, `${job.job_id}-2.jpg`]);
    for (const file of job.files) {
      expect((await readFile(join(home.dir, file))).subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
    }
  });
});

describe('cgw speech and restore', () => {
  it('speech saves audio; restore upscales a local PNG', async () => {
    const wav = join(home.dir, 'hello.wav');
    const spoken = await cgw(['speech', '-m', 'kokoro-82m', '--format', 'wav', '-o', wav, 'Hello there.'], { env });
    expect(spoken.stderr).toBe('');
    expect((await readFile(wav)).subarray(0, 4).toString('latin1')).toBe('RIFF');

    const source = join(home.dir, 'source.png');
    const red = { r: 200, g: 30, b: 30 };
    await writeFile(
      source,
      await sharp({ create: { width: 48, height: 32, channels: 3, background: red } })
        .png()
        .toBuffer(),
    );
    const big = join(home.dir, 'big.png');
    const restored = await cgw(['restore', '-m', 'topaz-gigapixel-standard', '--scale', '2', '-o', big, source], {
      env,
    });
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    expect(await sharp(await readFile(big)).metadata()).toMatchObject({ format: 'png', width: 96, height: 64 });
  });
});

const tmuxMissing = await promisify(execFile)('tmux', ['-V']).then(
  () => false,
  () => true,
);

describe('cgw image in a terminal', () => {
  it.skipIf(tmuxMissing)('shows a progress bar on the terminal, then the saved path (tmux)', async () => {
    // A private tmux server (-L), so a person's own tmux sessions are never touched.
    const socket = `cgw-test-${process.pid}`;
    const tmux = (...args: string[]) => promisify(execFile)('tmux', ['-L', socket, ...args]);
    const vars = Object.entries(env).map(([name, value]) => `${name}='${value}'`);
    const out = join(home.dir, 'terminal.png');
    const script = `cd '${home.dir}' && env ${vars.join(' ')} '${process.execPath}' '${CGW}' image -m imgG-4o -o '${out}' 'A quiet harbour'; echo "exit=$?"; sleep 120`;
    await tmux('new-session', '-d', '-s', 'cgw', '-x', '120', '-y', '30', script);
    try {
      const screen = await pollUntil(
        async () => (await tmux('capture-pane', '-p', '-t', 'cgw')).stdout,
        (text) => text.includes('exit='),
        { withinMs: 45_000, everyMs: 200 },
      );
      expect(screen).toMatch(/image \[[█░]+\] 100% \| completed/);
      expect(screen).toContain(`saved ${out}`);
      expect(screen).toContain('exit=0');
      expect(screen.indexOf('100%')).toBeLessThan(screen.indexOf(`saved ${out}`));
      expect((await readFile(out)).subarray(0, 8)).toEqual(PNG_MAGIC);
    } finally {
      await tmux('kill-server').catch(() => undefined);
    }
  });
});
