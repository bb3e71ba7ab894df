/**
 * `chat` and `embed`: the model API's text calls. `chat` streams (SPEC 3.4) and writes each `delta.content` as it
 * arrives, so a long answer starts showing at once; Ctrl-C aborts the request. `--json` waits for the whole
 * answer and prints it with its usage (cost in USD, SPEC 2.5).
 */
import { createEmbeddings, getModelCatalog } from '@compute-gateway/sdk';
import type { Command } from 'commander';
import { type Context, context, numberOption } from '../context.js';
import { interruptSignal, textArgument } from '../input.js';
import { printJson, printLine, printTable, usd } from '../output.js';

interface ChatOptions {
  model?: string;
  system?: string;
  maxTokens?: number;
  temperature?: number;
}

/** Without `-m`, the catalog's default model (SPEC 2.1), so `cgw chat "hi"` just works. */
async function modelOrDefault(ctx: Context, model: string | undefined): Promise<string> {
  if (model !== undefined) return model;
  return (await ctx.gateway.call(getModelCatalog)).data.default_model;
}

async function chat(words: string[], options: ChatOptions, command: Command): Promise<void> {
  const ctx = await context(command);
  const prompt = await textArgument(words, 'prompt');
  const model = await modelOrDefault(ctx, options.model);
  const messages = [
    ...(options.system === undefined ? [] : [{ role: 'system' as const, content: options.system }]),
    { role: 'user' as const, content: prompt },
  ];
  const body = {
    model,
    messages,
    stream_options: { include_usage: true },
    ...(options.maxTokens === undefined ? {} : { max_tokens: options.maxTokens }),
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
  };
  let text = '';
  let usage: unknown = null;
  let finishReason: string | null = null;
  for await (const chunk of ctx.gateway.streamChat(body, { signal: interruptSignal() })) {
    const choice = chunk.choices[0];
    const delta = choice?.delta.content ?? '';
    if (choice?.finish_reason) finishReason = choice.finish_reason;
    if (chunk.usage) usage = chunk.usage;
    text += delta;
    if (!ctx.json && delta !== '') process.stdout.write(delta);
  }
  if (ctx.json) return printJson({ model, text, finish_reason: finishReason, usage });
  process.stdout.write('\n');
  const cost = (usage as { cost?: number } | null)?.cost;
  if (ctx.interactive && cost !== undefined) process.stderr.write(`(${model}, ${usd(cost)})\n`);
}

async function embed(words: string[], options: { model: string; dimensions?: number }, command: Command) {
  const ctx = await context(command);
  // Several arguments are several inputs (one vector each); stdin is one input.
  const input = words.length > 1 ? words : await textArgument(words, 'text');
  const body = { model: options.model, input, ...(options.dimensions ? { dimensions: options.dimensions } : {}) };
  const answer = await ctx.gateway.call(createEmbeddings, { body });
  if (ctx.json) return printJson(answer);
  printTable(
    ['input', 'dimensions', 'vector (first values)'],
    answer.data.map((item) => {
      const vector = Array.isArray(item.embedding) ? item.embedding : [];
      const head = vector.slice(0, 4).map((x) => x.toFixed(4));
      return [item.index, vector.length, `[${head.join(', ')}${vector.length > 4 ? ', ...' : ''}]`];
    }),
  );
  printLine(`${answer.model}: ${answer.usage.prompt_tokens} tokens, ${usd(answer.usage.cost)}`);
}

export function registerChat(root: Command): void {
  root
    .command('chat')
    .description('ask a model and stream its answer (the prompt from the arguments or stdin)')
    .argument('[prompt...]', 'the prompt; "-" or nothing reads it from stdin')
    .option('-m, --model <model>', "the model (default: the catalog's default model)")
    .option('-s, --system <text>', 'a system message before the prompt')
    .option('--max-tokens <n>', "cap the answer's length", numberOption('--max-tokens'))
    .option('--temperature <t>', 'sampling temperature', numberOption('--temperature'))
    .action(chat);
  root
    .command('embed')
    .description('embedding vectors for one or more texts (each argument is one input; or stdin)')
    .argument('[text...]', 'the texts; nothing reads one from stdin')
    .requiredOption('-m, --model <model>', 'the embedding model (see `cgw models --kind embedding`)')
    .option('--dimensions <n>', 'shorter vectors, where the model allows it', numberOption('--dimensions'))
    .action(embed);
}
