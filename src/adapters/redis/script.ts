import { createHash } from 'node:crypto';

export interface ScriptOptions {
  keys: string[];
  arguments: string[];
}

/** The part of an ioredis client (redis/connect.ts) that runs Lua scripts. */
export interface RedisScriptClient {
  evalsha(sha1: string, numkeys: number, ...keysAndArguments: string[]): Promise<unknown>;
  eval(script: string, numkeys: number, ...keysAndArguments: string[]): Promise<unknown>;
  script(subcommand: 'LOAD', script: string): Promise<unknown>;
}

/** One Lua script run atomically on Redis, by its SHA1 so the text is sent only when Redis lacks it. */
export class RedisScript {
  readonly sha1: string;

  constructor(readonly source: string) {
    this.sha1 = createHash('sha1').update(source).digest('hex');
  }

  /** EVALSHA, and EVAL when this Redis has not seen the script (restart, SCRIPT FLUSH, failover); EVAL caches it. */
  async run(client: RedisScriptClient, options: ScriptOptions): Promise<unknown> {
    const keysAndArguments = [...options.keys, ...options.arguments];
    try {
      return await client.evalsha(this.sha1, options.keys.length, ...keysAndArguments);
    } catch (err) {
      if (!(err instanceof Error && err.message.startsWith('NOSCRIPT'))) throw err;
      return client.eval(this.source, options.keys.length, ...keysAndArguments);
    }
  }

  /** Optional warm-up at boot: SCRIPT LOAD, checking Redis hashed it as we did. */
  async load(client: RedisScriptClient): Promise<void> {
    const sha1 = await client.script('LOAD', this.source);
    if (sha1 !== this.sha1) throw new Error(`SCRIPT LOAD returned ${String(sha1)}, expected ${this.sha1}`);
  }
}
