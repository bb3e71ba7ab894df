/**
 * `image`, `music` and `speech`: media jobs (SPEC 2.6) that run to a file. Each builds its request from flags and
 * hands it to the shared runner (media-run.ts: progress bar, download, cost).
 */
import type { ImageRequest, MusicRequest, SpeechRequest } from '@compute-gateway/sdk';
import { type Command, Option } from 'commander';
import { context, numberOption } from '../context.js';
import { textArgument } from '../input.js';
import { runMedia } from './media-run.js';

interface Common {
  model: string;
  output?: string;
  format?: string;
}

/** Drops the flags that were not given, so the service applies its own defaults. */
export const defined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;

async function image(words: string[], options: Common & { n?: number; size?: string; quality?: string }, cmd: Command) {
  const ctx = await context(cmd);
  const body = defined({
    model: options.model,
    prompt: await textArgument(words, 'prompt'),
    n: options.n,
    size: options.size,
    quality: options.quality as ImageRequest['quality'],
    output_format: options.format as ImageRequest['output_format'],
  });
  await runMedia(ctx, 'image', body, options.output);
}

interface MusicOptions extends Common {
  lyrics?: string;
  instrumental?: boolean;
  duration?: number;
}

async function music(words: string[], options: MusicOptions, cmd: Command) {
  const ctx = await context(cmd);
  const body: MusicRequest = defined({
    model: options.model,
    prompt: await textArgument(words, 'prompt'),
    lyrics: options.lyrics,
    instrumental: options.instrumental,
    duration: options.duration,
    output_format: options.format,
  });
  await runMedia(ctx, 'music', body, options.output);
}

async function speech(words: string[], options: Common & { voice?: string }, cmd: Command) {
  const ctx = await context(cmd);
  const body: SpeechRequest = defined({
    model: options.model,
    input: await textArgument(words, 'text'),
    voice: options.voice,
    output_format: options.format,
  });
  await runMedia(ctx, 'speech', body, options.output);
}

/** The flags every media command has. */
export function mediaCommand(root: Command, name: string, description: string, kind: string): Command {
  return root
    .command(name)
    .description(description)
    .requiredOption('-m, --model <model>', `the model (see \`cgw models --kind ${kind}\`)`)
    .option('-o, --output <file>', 'where to save (several files get -1, -2, ...); default <job_id>-<n>.<ext>');
}

export function registerMedia(root: Command): void {
  mediaCommand(root, 'image', 'generate images and save them (progress shown while the job runs)', 'image')
    .argument('[prompt...]', 'what to draw; nothing reads it from stdin')
    .option('-n, --n <count>', 'how many images', numberOption('-n'))
    .option('--size <WxH>', 'pixel size, e.g. 1024x1024')
    .addOption(new Option('--quality <q>', 'quality tier').choices(['auto', 'low', 'medium', 'high', 'standard', 'hd']))
    .addOption(new Option('--format <format>', 'image format').choices(['png', 'jpeg', 'webp']))
    .action(image);
  mediaCommand(root, 'music', 'compose music and save the track(s)', 'music')
    .argument('[prompt...]', 'the style and mood; nothing reads it from stdin')
    .option('--lyrics <text>', 'lyrics to sing')
    .option('--instrumental', 'no vocals')
    .option('--duration <seconds>', 'track length', numberOption('--duration'))
    .option('--format <format>', 'audio container, e.g. mp3')
    .action(music);
  mediaCommand(root, 'speech', 'read text aloud and save the audio', 'audio')
    .argument('[text...]', 'the text; nothing reads it from stdin')
    .option('--voice <voice>', "one of the model's voices")
    .option('--format <format>', 'audio container, e.g. mp3 or wav')
    .action(speech);
}
