/**
 * `video` (SPEC 2.6, 3.2): a clip to a file. `--draft` renders a cheap 480p draft on the draft-capable model, and
 * `video final <job_id>` renders that draft's 1080p final (finalizeVideoJob, billed separately) and saves it.
 */
import { finalizeVideoJob, getModelCatalog, type VideoRequest } from '@compute-gateway/sdk';
import type { Command } from 'commander';
import { type Context, context, numberOption } from '../context.js';
import { UsageError } from '../errors.js';
import { textArgument } from '../input.js';
import { printLine, usd } from '../output.js';
import { defined } from './media.js';
import { finishJob, runMedia } from './media-run.js';

interface VideoOptions {
  model?: string;
  output?: string;
  duration?: number;
  resolution?: string;
  aspectRatio?: string;
  imageUrl?: string;
  audio?: boolean;
  format?: string;
  draft?: boolean;
}

/** `--draft` without `-m`: the catalog's draft-capable video model (SPEC 3.2). */
async function draftModel(ctx: Context): Promise<string> {
  const { models } = (await ctx.gateway.call(getModelCatalog)).data;
  const capable = models.find((m) => m.media_kind === 'video' && m.capabilities.draft === true);
  if (capable === undefined) throw new UsageError('no draft-capable video model in the catalog; give -m');
  return capable.slug;
}

async function video(words: string[], options: VideoOptions, command: Command): Promise<void> {
  const ctx = await context(command);
  if (options.draft === true && options.resolution !== undefined && options.resolution !== '480p') {
    throw new UsageError('--draft renders at 480p; leave out --resolution');
  }
  const model = options.model ?? (options.draft === true ? await draftModel(ctx) : undefined);
  if (model === undefined) throw new UsageError('give the model with -m (see `cgw models --kind video`)');
  const body: VideoRequest = defined({
    model,
    prompt: await textArgument(words, 'prompt'),
    duration: options.duration,
    resolution: options.draft === true ? '480p' : options.resolution,
    aspect_ratio: options.aspectRatio,
    image_url: options.imageUrl,
    audio: options.audio,
    output_format: options.format as VideoRequest['output_format'],
  });
  await runMedia(ctx, 'video', body, options.output);
  if (options.draft === true && !ctx.json) printLine('render the 1080p final with: cgw video final <job_id>');
}

async function final(jobId: string, _options: unknown, command: Command): Promise<void> {
  const ctx = await context(command);
  const { data } = await ctx.gateway.call(finalizeVideoJob, { path: { job_id: jobId } });
  if (ctx.interactive) process.stderr.write(`final ${data.job_id}, estimated ${usd(data.estimated_cost_usd)}\n`);
  // -o is `video`'s: commander gives a parent's option to the parent wherever it stands on the line.
  await finishJob(ctx, 'video', data.job_id, (command.optsWithGlobals() as { output?: string }).output);
}

export function registerVideo(root: Command): void {
  const command = root
    .command('video')
    .description("generate a video clip and save it; `video final <job_id>` renders a draft's 1080p final")
    .argument('[prompt...]', 'what to film; nothing reads it from stdin')
    .option('-m, --model <model>', 'the model (see `cgw models --kind video`; with --draft, the draft-capable one)')
    .option('-o, --output <file>', 'where to save; default <job_id>-<n>.<ext>')
    .option('--draft', 'a cheap 480p draft on the draft-capable model; finalize it later')
    .option('--duration <seconds>', 'clip length', numberOption('--duration'))
    .option('--resolution <res>', 'e.g. 720p or 1080p')
    .option('--aspect-ratio <ratio>', 'e.g. 16:9')
    .option('--image-url <url>', 'a first frame (image to video)')
    .option('--audio', 'with a soundtrack, where the model has one')
    .option('--format <format>', 'mp4, mov or webm')
    .action(video);
  command
    .command('final <job_id>')
    .description('render the 1080p final of a completed 480p draft (billed separately) and save it')
    .action(final);
}
