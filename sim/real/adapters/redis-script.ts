import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * A Lua script sent by its SHA1 (EVALSHA), so the body crosses the wire once
 * per server lifetime rather than with every request. A server that does not
 * know the script (the first call, or after a restart emptied its script
 * cache) answers NOSCRIPT without running anything, so sending the body
 * again with EVAL, which also caches it, cannot run the script twice.
 */
export class LuaScript {
  readonly sha: string;

  constructor(
    readonly lua: string,
    readonly numberOfKeys: number,
  ) {
    this.sha = createHash('sha1').update(lua).digest('hex');
  }

  async run(redis: Redis, ...keysAndArgs: Array<string | number>): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, this.numberOfKeys, ...keysAndArgs);
    } catch (err) {
      if (!isNoScript(err)) throw err;
      return redis.eval(this.lua, this.numberOfKeys, ...keysAndArgs);
    }
  }
}

function isNoScript(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('NOSCRIPT');
}
