import { Redis } from 'ioredis';
import type { LockOp } from '../../stores/protocol.js';
import { answer, connectWithin, RefusedError, usToMsCeil, type NodeAnswer, type NodeCall, type RealNode } from './types.js';

/*
 * The lock's commands as Redis runs them. Each script is atomic on the
 * server, so "check the token, then act" cannot be split by another client.
 * KEYS[1] is the lock, KEYS[2] its fencing counter.
 */

/** SET NX PX, then INCR the fencing counter; the same token again only extends (Symfony's save script). ARGV[3] = '0' skips the counter. */
const ACQUIRE = `
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {1, tonumber(redis.call('GET', KEYS[2]) or '0'), 1}
end
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  if ARGV[3] == '0' then return {1, 0, 0} end
  return {1, redis.call('INCR', KEYS[2]), 0}
end
return {0, holder}
`;

/** Extend only while the key still holds our token. */
const REFRESH = `
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return {1}
end
return {0, holder}
`;

/** Delete only while the key still holds our token. */
const RELEASE = `
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return {1}
end
return {0, holder}
`;

/** The plain-DEL mistake: delete whoever holds it (the script only reports whom it deleted). */
const PLAIN_DEL = `
local holder = redis.call('GET', KEYS[1])
redis.call('DEL', KEYS[1])
return {holder and 1 or 0, holder}
`;

/** The second half of exists-then-set: an unconditional SET PX (it overwrites whoever holds it). */
const PLAIN_SET = `
local holder = redis.call('GET', KEYS[1])
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return {redis.call('INCR', KEYS[2]), holder}
`;

/**
 * Whether `owner` holds the lock now, whichever way it was written: our
 * string key, or Symfony 5.4's RedisStore sorted set (each token scored with
 * its expiry on the server's TIME, in seconds, beside "__write__").
 */
const HOLDS = `
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
`;

type Reply = [number, number | string | null | undefined, number?];

interface LockCommands {
  lockAcquire(key: string, fence: string, owner: string, ttlMs: number, counter: '0' | '1'): Promise<Reply>;
  lockRefresh(key: string, fence: string, owner: string, ttlMs: number): Promise<Reply>;
  lockRelease(key: string, fence: string, owner: string): Promise<Reply>;
  lockPlainDel(key: string, fence: string): Promise<Reply>;
  lockPlainSet(key: string, fence: string, owner: string, ttlMs: number): Promise<Reply>;
  lockHolds(key: string, owner: string): Promise<number>;
}

export type LockRedis = Redis & LockCommands;

/** The key of a lock's fencing counter. */
export function fenceKey(key: string): string {
  return `${key}:fence`;
}

/**
 * An ioredis connection with the lock's scripts defined (sent by EVALSHA).
 * Commands fail at once while the server is down, rather than queueing until
 * it is back: a refused connection is an answer the lock library must see.
 */
export function lockRedis(url: string, opts: { autoPipelining?: boolean } = {}): LockRedis {
  const r = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 2_000,
    retryStrategy: () => 50,
    enableAutoPipelining: opts.autoPipelining === true,
  });
  r.on('error', () => undefined);
  r.defineCommand('lockAcquire', { numberOfKeys: 2, lua: ACQUIRE });
  r.defineCommand('lockRefresh', { numberOfKeys: 2, lua: REFRESH });
  r.defineCommand('lockRelease', { numberOfKeys: 2, lua: RELEASE });
  r.defineCommand('lockPlainDel', { numberOfKeys: 2, lua: PLAIN_DEL });
  r.defineCommand('lockPlainSet', { numberOfKeys: 2, lua: PLAIN_SET });
  r.defineCommand('lockHolds', { numberOfKeys: 1, lua: HOLDS });
  return r as LockRedis;
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
  readonly redis: LockRedis;

  constructor(
    readonly name: string,
    private readonly url: string,
    /** Hand out the INCR counter as a fencing token (off for Redlock's nodes, as node-redlock has none). */
    private readonly fencing = true,
    /** Pipeline the commands of concurrent callers on the one connection (many clients in one process: the bench). */
    opts: { autoPipelining?: boolean } = {},
  ) {
    this.redis = lockRedis(url, opts);
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
    const r = this.redis;
    switch (req.op) {
      case 'acquire': {
        if (req.shared === true) return answer({ ok: false, error: 'shared locks are not offered by the real Redis adapter' });
        const ttlMs = usToMsCeil(req.ttlUs);
        const [ok, value, again] = await r.lockAcquire(req.key, fenceKey(req.key), req.owner, ttlMs, this.fencing ? '1' : '0');
        if (ok !== 1) return answer({ ok: false, holder: holderOf(value) });
        const fence = this.fencing ? Number(value) : undefined;
        if (again === 1) return answer({ ok: true, fence }, { kind: 'lock.refreshed', key: req.key, owner: req.owner, fence, ttlUs: req.ttlUs });
        return answer({ ok: true, fence }, { kind: 'lock.granted', key: req.key, owner: req.owner, fence, ttlUs: req.ttlUs, data: { command: 'SET NX PX' } });
      }
      case 'refresh': {
        const [ok, holder] = await r.lockRefresh(req.key, fenceKey(req.key), req.owner, usToMsCeil(req.ttlUs));
        if (ok !== 1) return answer({ ok: false, holder: holderOf(holder) });
        return answer({ ok: true }, { kind: 'lock.refreshed', key: req.key, owner: req.owner, ttlUs: req.ttlUs });
      }
      case 'release': {
        const [ok, holder] = await r.lockRelease(req.key, fenceKey(req.key), req.owner);
        if (ok !== 1) return answer({ ok: false, holder: holderOf(holder) });
        return answer({ ok: true }, { kind: 'lock.released', key: req.key, owner: req.owner, reason: 'released' });
      }
      case 'del': {
        const [deleted, holder] = await r.lockPlainDel(req.key, fenceKey(req.key));
        const was = holderOf(holder);
        if (deleted !== 1 || was === null) return answer({ ok: false, holder: null });
        if (was === req.owner) return answer({ ok: true }, { kind: 'lock.released', key: req.key, owner: was, reason: 'released' });
        return answer({ ok: true }, { kind: 'lock.deleted', key: req.key, owner: was, reason: `plain DEL by ${call.client}` });
      }
      case 'get':
        return answer({ ok: true, holder: holderOf(await r.get(req.key)) });
      case 'exists':
        // The model's answer: the key holds this owner's token now (a string key, or Symfony's sorted set).
        return answer({ ok: (await r.lockHolds(req.key, req.owner)) === 1 });
      case 'set': {
        const [fenceValue, holder] = await r.lockPlainSet(req.key, fenceKey(req.key), req.owner, usToMsCeil(req.ttlUs));
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
    return (await this.redis.lockHolds(key, owner)) === 1;
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}
