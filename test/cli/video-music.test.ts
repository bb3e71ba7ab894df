/**
 * `cgw video --draft`, `cgw video final` and `cgw music` against a live server on the sandbox upstream: a 480p draft
 * of the draft-capable model (SPEC 3.2) saved as an MP4, its 1080p final rendered and saved as a separate job,
 * and music tracks saved, each with the job's cost printed.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cgw, type MediaSession, mediaSession } from './cgw.js';

/** An ISO BMFF file (MP4) names its `ftyp` box at byte 4. */
const isMp4 = (bytes: Buffer) => bytes.subarray(4, 8).toString('latin1') === 'ftyp';

let session: MediaSession;
let home: MediaSession['home'];
let env: Record<string, string>;
beforeAll(async () => {
  session = await mediaSession(50);
  ({ home, env } = session);
});
afterAll(() => session?.close());

describe('cgw video', () => {
  it('renders a 480p draft on the draft-capable model, then its 1080p final, each saved', async () => {
    const draftFile = join(home.dir, 'draft.mp4');
    const draft = await cgw(['video', '--draft', '--duration', '4', '-o', draftFile, 'A paper boat in the rain'], {
      env,
    });
    expect(draft.stderr).toBe('');
    expect(draft.code).toBe(0);
    expect(draft.stdout).toContain('cgw video final <job_id>');
    const jobId = /job (job_\S+) \(vidA-2-5\)/.exec(draft.stdout)?.[1];
    expect(jobId, draft.stdout).toBeDefined();
    expect(isMp4(await readFile(draftFile))).toBe(true);

    const finalFile = join(home.dir, 'final.mp4');
    const final = await cgw(['video', 'final', jobId!, '-o', finalFile, '--json'], { env });
    expect(final.code).toBe(0);
    const job = JSON.parse(final.stdout);
    expect(job).toMatchObject({ status: 'completed', config: expect.objectContaining({ resolution: '1080p' }) });
    expect(job.job_id).not.toBe(jobId);
    expect(isMp4(await readFile(finalFile))).toBe(true);
  });

  it('refuses --draft with another resolution before anything is held (exit 2)', async () => {
    const result = await cgw(['video', '--draft', '--resolution', '1080p', 'Rain'], { env });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--draft renders at 480p/);
  });
});

describe('cgw music', () => {
  it('saves every track the model delivers', async () => {
    const result = await cgw(
      ['music', '-m', 'musicgen-large', '--duration', '3', '--format', 'wav', '--json', 'Calm piano'],
      {
        env,
        cwd: home.dir,
      },
    );
    expect(result.code).toBe(0);
    const job = JSON.parse(result.stdout);
    expect(job.status).toBe('completed');
    expect(job.files.length).toBeGreaterThan(0);
    for (const file of job.files)
      expect((await readFile(join(home.dir, file))).subarray(0, 4).toString('latin1')).toBe('RIFF');
  });
});
