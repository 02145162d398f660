import { Redis } from 'ioredis';
import { InputError, show } from '../errors.js';

/** Connection settings taken from a `redis://[user:password@]host:port[/db]` URL. */
export interface RedisTarget {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly db: number;
  readonly username: string | undefined;
  readonly password: string | undefined;
}

export function parseRedisUrl(text: string, source = '--queue'): RedisTarget {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new InputError(source, [{ path: '', message: `expected a Redis URL such as redis://127.0.0.1:6379, got ${show(text)}` }]);
  }
  if (u.protocol !== 'redis:') throw new InputError(source, [{ path: '', message: `expected a redis:// URL, got ${show(text)}` }]);
  const db = u.pathname === '' || u.pathname === '/' ? 0 : Number(u.pathname.slice(1));
  if (!Number.isInteger(db) || db < 0) throw new InputError(source, [{ path: '', message: `the database number in ${show(text)} must be a whole number` }]);
  return {
    url: `redis://${u.host}${db === 0 ? '' : `/${db}`}`,
    host: u.hostname === '' ? '127.0.0.1' : u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port === '' ? 6379 : Number(u.port),
    db,
    username: u.username === '' ? undefined : decodeURIComponent(u.username),
    password: u.password === '' ? undefined : decodeURIComponent(u.password),
  };
}

/** The options BullMQ connections take; blocking commands need maxRetriesPerRequest null. */
export function connectionOf(t: RedisTarget): Record<string, unknown> {
  return {
    host: t.host,
    port: t.port,
    db: t.db,
    ...(t.username === undefined ? {} : { username: t.username }),
    ...(t.password === undefined ? {} : { password: t.password }),
    maxRetriesPerRequest: null,
  };
}

/** How long a queue URL has to answer a PING before it is reported as not answering. */
export const ANSWER_WITHIN_MS = 3000;

/**
 * Checks that the server answers a PING within a few seconds; otherwise one
 * line naming the URL. Given a stream's key, it also gives the id of that
 * stream's newest entry ('0-0' when it has none), so a reader started later
 * can begin right after it and miss nothing written in between.
 */
export async function probeRedis(t: RedisTarget, source = '--queue', stream?: string): Promise<string> {
  const client = new Redis({
    host: t.host,
    port: t.port,
    db: t.db,
    ...(t.username === undefined ? {} : { username: t.username }),
    ...(t.password === undefined ? {} : { password: t.password }),
    lazyConnect: true,
    connectTimeout: ANSWER_WITHIN_MS,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  let first: NodeJS.ErrnoException | undefined;
  client.on('error', (err: NodeJS.ErrnoException) => {
    // Reported below as one line; ioredis would otherwise print every attempt.
    first ??= err;
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_WITHIN_MS / 1000} s`)), ANSWER_WITHIN_MS);
    });
    await Promise.race([client.connect().then(() => client.ping()), timeout]);
    if (stream === undefined) return '0-0';
    const newest = await client.xrevrange(stream, '+', '-', 'COUNT', 1);
    return newest[0]?.[0] ?? '0-0';
  } catch (err) {
    const e = first ?? (err as NodeJS.ErrnoException);
    const why = e.code === 'ECONNREFUSED' ? 'connection refused' : e.code === 'ENOTFOUND' ? 'no such host' : e.message;
    throw new InputError(source, [{ path: '', message: `${t.url} does not answer (${why}): is a Redis server running there?` }]);
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
}
