import { Redis } from 'ioredis';
import type { Socket } from 'node:net';
import type { LockOp } from '../../stores/protocol.js';
import { LuaScript } from './redis-script.js';
import { TickWrites } from './tick-writes.js';
import { answer, connectWithin, RefusedError, usToMsCeil, type NodeAnswer, type NodeCall, type RealNode } from './types.js';

/*
 * The lock's commands as Redis runs them. Each script is atomic on the
 * server, so "check the token, then act" cannot be split by another client.
 * KEYS[1] is the lock, KEYS[2] its fencing counter.
 */

/**
 * SET NX PX, then INCR the fencing counter; the same token again only
 * extends (Symfony's save script). SET's GET option answers who held the key
 * in the same command that tries to take it. ARGV[3] = '0' skips the counter.
 * The reply, kept to one value on the hot path: a number is a new grant and
 * its fencing token (0 without the counter), a string the holder who has
 * the key, a one-element table the token of our own lease, extended.
 */
const ACQUIRE = new LuaScript(
  `
local holder = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2], 'GET')
if not holder then
  if ARGV[3] == '0' then return 0 end
  return redis.call('INCR', KEYS[2])
end
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {tonumber(redis.call('GET', KEYS[2]) or '0')}
end
return holder
`,
  2,
);

/** Extend only while the key still holds our token. */
const REFRESH = new LuaScript(
  `
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {1}
end
return {0, holder}
`,
  1,
);

/** Delete only while the key still holds our token. The reply: 1 when deleted, else the holder's token, or nil when the key is free. */
const RELEASE = new LuaScript(
  `
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return holder
`,
  1,
);

/** The plain-DEL mistake: delete whoever holds it (the script only reports whom it deleted). */
const PLAIN_DEL = new LuaScript(
  `
local holder = redis.call('GET', KEYS[1])
redis.call('DEL', KEYS[1])
return {holder and 1 or 0, holder}
`,
  1,
);

/** The second half of exists-then-set: an unconditional SET PX (it overwrites whoever holds it). */
const PLAIN_SET = new LuaScript(
  `
local holder = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return {redis.call('INCR', KEYS[2]), holder}
`,
  2,
);

/**
 * Whether `owner` holds the lock now, whichever way it was written: our
 * string key, or Symfony 5.4's RedisStore sorted set (each token scored with
 * its expiry on the server's TIME, in seconds, beside "__write__").
 */
const HOLDS = new LuaScript(
  `
local kind = redis.call('TYPE', KEYS[1]).ok
if kind == 'string' then
  return redis.call('GET', KEYS[1]) == ARGV[1] and 1 or 0
end
if kind == 'zset' then
  local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
  if not score then return 0 end
  local t = redis.call('TIME')
  return tonumber(score) > tonumber(t[1]) + tonumber(t[2]) / 1000000 and 1 or 0
end
return 0
`,
  1,
);

type Reply = [number, number | string | null | undefined, number?];

/** The one `data` of every grant's fact, shared rather than made anew on each acquire. */
const GRANTED_BY = Object.freeze({ command: 'SET NX PX' });

/** The key of a lock's fencing counter. */
export function fenceKey(key: string): string {
  return `${key}:fence`;
}

/**
 * An ioredis connection for the lock's commands. Commands fail at once while
 * the server is down, rather than queueing until it is back: a refused
 * connection is an answer the lock library must see.
 */
export function lockRedis(url: string): Redis {
  const r = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    retryStrategy: () => 50,
  });
  r.on('error', () => undefined);
  return r;
}

/** Whether an ioredis failure means the command never reached the server. */
export function isConnectionError(err: unknown): boolean {
  const m = err instanceof Error ? err.message : String(err);
  return /ECONNREFUSED|ECONNRESET|EPIPE|Stream isn't writeable|Connection is closed|connect ETIMEDOUT|enableOfflineQueue|max retries/i.test(m);
}

function holderOf(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

/**
 * A Redis server as a lock store: SET NX PX to acquire, token-checked
 * release and refresh in Lua, an INCR counter beside the key as the fencing
 * token. It answers exactly the requests the simulated Redis node answers.
 */
export class RedisNode implements RealNode {
  readonly redis: Redis;
  private readonly writes: TickWrites;

  constructor(
    readonly name: string,
    private readonly url: string,
    /** Hand out the INCR counter as a fencing token (off for Redlock's nodes, as node-redlock has none). */
    private readonly fencing = true,
  ) {
    this.redis = lockRedis(url);
    this.writes = new TickWrites(() => this.redis.stream as Socket | undefined);
  }

  /** Runs a lock script, its write sent with the others of this tick (many callers share one node in the bench and in Combined stores). */
  private script<T = Reply>(s: LuaScript, ...keysAndArgs: Array<string | number>): Promise<T> {
    this.writes.hold();
    return s.run(this.redis, ...keysAndArgs) as Promise<T>;
  }

  async open(): Promise<void> {
    await connectWithin(this.name, this.url, 3_000, () => this.redis.connect());
  }

  async handle(req: LockOp, call: NodeCall): Promise<NodeAnswer> {
    try {
      return await this.run(req, call);
    } catch (err) {
      if (isConnectionError(err)) throw new RefusedError(this.name, err instanceof Error ? err.message : String(err));
      return answer({ ok: false, error: err instanceof Error ? err.message : String(err) });
    }
  }

  private async run(req: LockOp, call: NodeCall): Promise<NodeAnswer> {
    switch (req.op) {
      case 'acquire': {
        if (req.shared === true) return answer({ ok: false, error: 'shared locks are not offered by the real Redis adapter' });
        const ttlMs = usToMsCeil(req.ttlUs);
        const got = await this.script<number | string | [number]>(ACQUIRE, req.key, fenceKey(req.key), req.owner, ttlMs, this.fencing ? '1' : '0');
        if (typeof got === 'string') return answer({ ok: false, holder: got });
        if (Array.isArray(got)) {
          const fence = this.fencing ? Number(got[0]) : undefined;
          return answer({ ok: true, fence }, { kind: 'lock.refreshed', key: req.key, owner: req.owner, fence, ttlUs: req.ttlUs });
        }
        const fence = this.fencing ? Number(got) : undefined;
        return answer({ ok: true, fence }, { kind: 'lock.granted', key: req.key, owner: req.owner, fence, ttlUs: req.ttlUs, data: GRANTED_BY });
      }
      case 'refresh': {
        const [ok, holder] = await this.script(REFRESH, req.key, req.owner, usToMsCeil(req.ttlUs));
        if (ok !== 1) return answer({ ok: false, holder: holderOf(holder) });
        return answer({ ok: true }, { kind: 'lock.refreshed', key: req.key, owner: req.owner, ttlUs: req.ttlUs });
      }
      case 'release': {
        const released = await this.script<number | string | null>(RELEASE, req.key, req.owner);
        if (released !== 1) return answer({ ok: false, holder: holderOf(released) });
        return answer({ ok: true }, { kind: 'lock.released', key: req.key, owner: req.owner, reason: 'released' });
      }
      case 'del': {
        const [deleted, holder] = await this.script(PLAIN_DEL, req.key);
        const was = holderOf(holder);
        if (deleted !== 1 || was === null) return answer({ ok: false, holder: null });
        if (was === req.owner) return answer({ ok: true }, { kind: 'lock.released', key: req.key, owner: was, reason: 'released' });
        return answer({ ok: true }, { kind: 'lock.deleted', key: req.key, owner: was, reason: `plain DEL by ${call.client}` });
      }
      case 'get': {
        this.writes.hold();
        return answer({ ok: true, holder: holderOf(await this.redis.get(req.key)) });
      }
      case 'exists':
        // The model's answer: the key holds this owner's token now (a string key, or Symfony's sorted set).
        return answer({ ok: await this.holds(req.key, req.owner) });
      case 'set': {
        const [fenceValue, holder] = await this.script(PLAIN_SET, req.key, fenceKey(req.key), req.owner, usToMsCeil(req.ttlUs));
        const fence = Number(fenceValue);
        const was = holderOf(holder);
        const granted = { kind: 'lock.granted', key: req.key, owner: req.owner, fence, ttlUs: req.ttlUs, data: { command: 'SET PX' } } as const;
        if (was !== null && was !== req.owner) {
          return answer({ ok: true, fence }, { kind: 'lock.overwritten', key: req.key, owner: was, reason: `SET by ${call.client} overwrote it` }, granted);
        }
        return answer({ ok: true, fence }, granted);
      }
    }
  }

  /** Whether `owner` holds `key` on this server now (ours or Symfony's way of writing it). */
  async holds(key: string, owner: string): Promise<boolean> {
    this.writes.hold();
    return (await HOLDS.run(this.redis, key, owner)) === 1;
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
