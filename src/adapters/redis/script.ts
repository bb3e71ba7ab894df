import { createHash } from 'node:crypto';

export interface ScriptOptions {
  keys: string[];
  arguments: string[];
}

/** The part of a node-redis v6 client (`createClient` from 'redis') that runs Lua scripts. */
export interface RedisScriptClient {
  evalSha(sha1: string, options: ScriptOptions): Promise<unknown>;
  eval(script: string, options: ScriptOptions): Promise<unknown>;
  scriptLoad(script: string): Promise<unknown>;
}

/** One Lua script run atomically on Redis, by its SHA1 so the text is sent only when Redis lacks it. */
export class RedisScript {
  readonly sha1: string;

  constructor(readonly source: string) {
    this.sha1 = createHash('sha1').update(source).digest('hex');
  }

  /** EVALSHA, and EVAL when this Redis has not seen the script (restart, SCRIPT FLUSH, failover); EVAL caches it. */
  async run(client: RedisScriptClient, options: ScriptOptions): Promise<unknown> {
    try {
      return await client.evalSha(this.sha1, options);
    } catch (err) {
      if (!(err instanceof Error && err.message.startsWith('NOSCRIPT'))) throw err;
      return client.eval(this.source, options);
    }
  }

  /** Optional warm-up at boot: SCRIPT LOAD, checking Redis hashed it as we did. */
  async load(client: RedisScriptClient): Promise<void> {
    const sha1 = await client.scriptLoad(this.source);
    if (sha1 !== this.sha1) throw new Error(`SCRIPT LOAD returned ${String(sha1)}, expected ${this.sha1}`);
  }
}
