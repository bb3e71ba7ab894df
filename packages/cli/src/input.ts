/**
 * Text a command takes from its arguments or, when none are given and stdin is piped, from stdin
 * (`git diff | cgw chat -m gpt-5-mini`). stdin is read only then, so a script with an open but idle stdin never hangs.
 */
import { UsageError } from './errors.js';

export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function textArgument(words: string[], what: string): Promise<string> {
  if (words.length > 0 && !(words.length === 1 && words[0] === '-')) return words.join(' ');
  if (process.stdin.isTTY === true && words.length === 0) {
    throw new UsageError(`no ${what}: give it as an argument or pipe it on stdin`);
  }
  const text = (await readStdin()).trim();
  if (text === '') throw new UsageError(`no ${what}: stdin was empty`);
  return text;
}

/** An AbortSignal that fires on Ctrl-C, so an interrupted command stops its request (exit 130). */
export function interruptSignal(): AbortSignal {
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  return controller.signal;
}
