/**
 * `restore` (SPEC 4.4): upscale or restore an image or a clip. The source is a URL or a local file, sent as a data
 * URI (the service hosts it before dispatch). `--video`, or a video file extension, picks the video kind.
 */
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { listTopazModels, type TopazImageRequest, type TopazVideoRequest } from '@compute-gateway/sdk';
import type { Command } from 'commander';
import { type Context, context, numberOption } from '../context.js';
import { UsageError } from '../errors.js';
import { defined } from './media.js';
import { runMedia } from './media-run.js';

const MIME: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.tif': 'image/tiff',
  '.tiff': 'image/tiff',
  '.mp4': 'video/mp4',
  '.mov': 'video/quicktime',
  '.webm': 'video/webm',
  '.mkv': 'video/x-matroska',
};

const isUrl = (source: string) => /^(https?:|data:)/.test(source);

async function sourceOf(source: string): Promise<string> {
  if (isUrl(source)) return source;
  const mime = MIME[extname(source).toLowerCase()] ?? 'application/octet-stream';
  return `data:${mime};base64,${(await readFile(source)).toString('base64')}`;
}

/** Without `-m`, the first restoration model this deployment can run for that medium. */
async function defaultModel(ctx: Context, media: 'image' | 'video'): Promise<string> {
  const { models } = (await ctx.gateway.call(listTopazModels)).data;
  const model = models.find((m) => m.media === media && m.available);
  if (model === undefined) throw new UsageError(`no ${media} restoration model is available here; give -m`);
  return model.slug;
}

interface RestoreOptions {
  model?: string;
  output?: string;
  video?: boolean;
  scale?: number;
  resolution?: string;
  format?: string;
}

async function restore(source: string, options: RestoreOptions, command: Command): Promise<void> {
  const ctx = await context(command);
  const video =
    options.video === true || (MIME[extname(new URL(source, 'file:///').pathname)] ?? '').startsWith('video/');
  const model = options.model ?? (await defaultModel(ctx, video ? 'video' : 'image'));
  if (video) {
    if (options.scale !== undefined) throw new UsageError('--scale is for images; a video takes --resolution');
    const body: TopazVideoRequest = defined({
      model,
      video_url: await sourceOf(source),
      resolution: options.resolution as TopazVideoRequest['resolution'],
      output_format: options.format as TopazVideoRequest['output_format'],
    });
    await runMedia(ctx, 'restoreVideo', body, options.output);
    return;
  }
  if (options.resolution !== undefined) throw new UsageError('--resolution is for videos; an image takes --scale');
  const body: TopazImageRequest = defined({
    model,
    image_url: await sourceOf(source),
    scale: options.scale,
    output_format: options.format as TopazImageRequest['output_format'],
  });
  await runMedia(ctx, 'restoreImage', body, options.output);
}

export function registerRestore(root: Command): void {
  root
    .command('restore <source>')
    .description('upscale or restore an image or a video (a URL or a local file) and save the result')
    .option('-m, --model <model>', 'the restoration model (default: the first available for the medium)')
    .option('-o, --output <file>', 'where to save; default <job_id>-<n>.<ext>')
    .option('--video', 'the source is a video (else guessed from its extension)')
    .option('--scale <factor>', 'image: multiply both sides (default 2)', numberOption('--scale'))
    .option('--resolution <res>', 'video: 1080p or 4k')
    .option('--format <format>', 'image: png, jpeg or tiff; video: mp4 or mov')
    .action(restore);
}
