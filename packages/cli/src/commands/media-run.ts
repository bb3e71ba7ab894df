/**
 * The shared path of every media command (SPEC 2.6 jobs): start the job (its price is held), show its progress,
 * wait for it, then save each output. Output links are signed public URLs, fetched with plain fetch and no key;
 * a failed job is charged nothing and leaves as `JobFailedError` (exit 8, or 7 for rejected input).
 */
import { writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { GatewayError, type JobKind, type JobTypes } from '@compute-gateway/sdk';
import type { Context } from '../context.js';
import { interruptSignal } from '../input.js';
import { printJson, printLine, usd } from '../output.js';
import { jobDisplay, withSpinner } from '../progress.js';

interface Output {
  url: string;
  mime_type: string;
  format?: string;
  b64_json?: string;
}

const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/tiff': 'tiff',
  'audio/mpeg': 'mp3',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/flac': 'flac',
  'audio/ogg': 'ogg',
  'video/mp4': 'mp4',
  'video/quicktime': 'mov',
  'video/webm': 'webm',
};

const extensionOf = (output: Output) => EXTENSIONS[output.mime_type] ?? output.format ?? 'bin';

/** `-o out.png` names the only file; with several, `out-1.png`, `out-2.png`; else `<job_id>-<n>.<ext>`. */
export function fileName(jobId: string, output: Output, index: number, count: number, wanted?: string): string {
  if (wanted === undefined) return `${jobId}-${index + 1}.${extensionOf(output)}`;
  if (count === 1) return wanted;
  const ext = extname(wanted);
  return `${wanted.slice(0, wanted.length - ext.length)}-${index + 1}${ext || `.${extensionOf(output)}`}`;
}

async function download(ctx: Context, output: Output): Promise<Buffer> {
  if (output.b64_json) return Buffer.from(output.b64_json, 'base64');
  const url = new URL(output.url, `${ctx.baseUrl}/`);
  let response: Response;
  try {
    response = await fetch(url);
  } catch (cause) {
    throw new GatewayError({
      status: 0,
      code: 'connection_error',
      message: `download failed: ${url}`,
      retryable: true,
      cause,
    });
  }
  if (!response.ok) {
    throw new GatewayError({
      status: response.status,
      code: 'download_failed',
      message: `download of ${url.pathname} answered HTTP ${response.status}`,
      requestId: response.headers.get('x-request-id') ?? undefined,
      retryable: response.status >= 500,
    });
  }
  return Buffer.from(await response.arrayBuffer());
}

interface FinishedJob {
  job_id: string;
  model: string;
  cost_usd?: number;
  balance_usd?: number;
  images?: Output[];
  outputs?: Output[];
}

/** Saves the job's files and reports them (paths, cost), or the record with the paths under `--json`. */
export async function saveJob(ctx: Context, job: FinishedJob, wanted?: string): Promise<string[]> {
  const outputs = job.outputs ?? job.images ?? [];
  const paths = await withSpinner(`saving ${outputs.length} file(s)`, ctx.interactive, async () => {
    const saved: string[] = [];
    for (const [index, output] of outputs.entries()) {
      const path = fileName(job.job_id, output, index, outputs.length, wanted);
      await writeFile(path, await download(ctx, output));
      saved.push(path);
    }
    return saved;
  });
  if (ctx.json) {
    // The bytes are in the files; the record keeps its links.
    const images = job.images?.map(({ b64_json: _bytes, ...image }) => image);
    printJson({ ...job, ...(images ? { images } : {}), files: paths });
    return paths;
  }
  for (const path of paths) printLine(`saved ${path}`);
  printLine(`job ${job.job_id} (${job.model}): cost ${usd(job.cost_usd)}, balance ${usd(job.balance_usd)}`);
  return paths;
}

/** Waits for a job already started, with the progress bar, and saves what it made. */
export async function finishJob<K extends JobKind>(ctx: Context, kind: K, jobId: string, wanted?: string) {
  const display = jobDisplay(kind, ctx.interactive);
  let job: JobTypes[K]['job'];
  try {
    job = await ctx.gateway.waitForJob(kind, jobId, {
      signal: interruptSignal(),
      onProgress: (j) => display.update(j),
    });
  } finally {
    display.stop();
  }
  return saveJob(ctx, job as FinishedJob, wanted);
}

export async function runMedia<K extends JobKind>(ctx: Context, kind: K, body: JobTypes[K]['body'], wanted?: string) {
  const started = await withSpinner(`starting the ${kind} job`, ctx.interactive, () =>
    ctx.gateway.startJob(kind, body),
  );
  if (ctx.interactive) process.stderr.write(`job ${started.job_id}, estimated ${usd(started.estimated_cost_usd)}\n`);
  return finishJob(ctx, kind, started.job_id, wanted);
}
