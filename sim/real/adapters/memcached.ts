import type { Socket } from 'node:net';
import Memcached from 'memcached';
import { TickWrites } from './tick-writes.js';
import type { LockOp } from '../../stores/protocol.js';
import { answer, connectWithin, RefusedError, type NodeAnswer, type NodeCall, type RealNode } from './types.js';

/** memcached counts expiry in whole seconds; Symfony rounds a TTL up to them. */
function ttlSeconds(ttlUs: number): number {
  return Math.max(1, Math.ceil(ttlUs / 1_000_000));
}

/**
 * A memcached connection that fails fast while the server is down. The
 * library's own reconnection pings the host with the system's `ping` before
 * it tries again; instead, a failed server is dropped at once (`remove`) and
 * the caller makes a fresh client for the next request. One connection
 * (`poolSize: 1`): commands then reach the server in the order they were
 * issued, so two of them can share a round trip (the library would put
 * nearly all traffic on one connection of its pool anyway).
 */
export function memcachedClient(location: string): Memcached {
  const c = new Memcached(location, { retries: 0, retry: 50, failures: 0, reconnect: 50, timeout: 2_000, idle: 0, poolSize: 1, remove: true });
  for (const event of ['issue', 'failure', 'remove', 'reconnecting', 'reconnect'] as const) c.on(event, () => undefined);
  return c;
}

/**
 * The socket of a client made by `memcachedClient` (its pool holds one). The
 * library keeps its pools in `connections`, by server, outside its typed API;
 * when that is not there, nothing is found and commands go out one write each.
 */
export function memcachedSocket(c: Memcached, location: string): Socket | undefined {
  const pools = (c as unknown as { connections?: Record<string, { pool?: Socket[] } | undefined> }).connections;
  return pools?.[location]?.pool?.[0];
}

function isRefusal(err: unknown): boolean {
  const m = err instanceof Error ? err.message : String(err);
  return /ECONNREFUSED|ECONNRESET|EPIPE|not available|connection|dead|Stream|No servers|server/i.test(m);
}

/** Turns a node-memcached callback call into a promise. */
export function mc<T>(f: (cb: (err: unknown, result: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => f((err, result) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(result))));
}

/**
 * A memcached server as Symfony's MemcachedStore uses it, one command per
 * request: `add` to acquire, `gets` (the reply carries the cas id), `cas` to
 * extend, `delete`, and the plain `set` of the exists-then-set mistake.
 * These are exactly the requests the simulated memcached answers.
 */
export class MemcachedNode implements RealNode {
  client: Memcached;
  /**
   * `client` connecting (a `version` all callers wait for), or true once it
   * answered: its one connection is open before commands are sent together,
   * since while it opens the pool has no room for a second request.
   */
  private connected: Promise<unknown> | true | undefined;
  private readonly location: string;
  /** The commands of one tick in one write (many callers share one node in the bench and in Combined stores). */
  private readonly writes = new TickWrites(() => memcachedSocket(this.client, this.location));
  /** cas ids as the server wrote them, by the number handed to the driver. */
  private readonly casIds = new Map<number, string>();

  constructor(
    readonly name: string,
    private readonly url: string,
  ) {
    this.location = url.replace(/^memcached:\/\//, '');
    this.client = memcachedClient(this.location);
  }

  async open(): Promise<void> {
    await connectWithin(this.name, this.url, 3_000, () => this.connect());
  }

  private async connect(): Promise<void> {
    if (this.connected === true) return;
    const client = this.client;
    this.connected ??= mc((cb) => client.version(cb as never)).catch((err: unknown) => {
      // Tried again by the next request, not remembered as failed for ever.
      if (this.client === client) this.connected = undefined;
      throw err;
    });
    await this.connected;
    if (this.client === client) this.connected = true;
  }

  async handle(req: LockOp, call: NodeCall): Promise<NodeAnswer> {
    try {
      if (this.connected !== true) await this.connect();
      return await this.run(req, call);
    } catch (err) {
      if (isRefusal(err)) {
        // The dropped server is not tried again by this client: the next request gets a fresh one.
        this.client.end();
        this.client = memcachedClient(this.location);
        this.connected = undefined;
        throw new RefusedError(this.name, err instanceof Error ? err.message : String(err));
      }
      return answer({ ok: false, error: err instanceof Error ? err.message : String(err) });
    }
  }

  private async run(req: LockOp, call: NodeCall): Promise<NodeAnswer> {
    const c = this.client;
    this.writes.hold();
    switch (req.op) {
      case 'acquire': {
        // `add` answers NOT_STORED (an error in this client) when the key exists.
        const added = await mc<boolean>((cb) => c.add(req.key, req.owner, ttlSeconds(req.ttlUs), cb)).catch((err: unknown) => {
          if (/not stored/i.test(err instanceof Error ? err.message : String(err))) return false;
          throw err;
        });
        if (!added) return answer({ ok: false, holder: null });
        return answer({ ok: true }, { kind: 'lock.granted', key: req.key, owner: req.owner, ttlUs: req.ttlUs, data: { command: 'add' } });
      }
      case 'get': {
        const data = await mc<Record<string, unknown> | undefined>((cb) => c.gets(req.key, cb as never));
        const value = data?.[req.key];
        if (data === undefined || typeof value !== 'string') return answer({ ok: true, holder: null });
        const casId = Number(data.cas);
        this.casIds.set(casId, String(data.cas));
        return answer({ ok: true, holder: value, casId } as never);
      }
      case 'refresh': {
        // The simulated driver sends a refresh with the cas id from its `gets`: memcached's `cas`.
        const casId = (req as LockOp & { casId?: number }).casId;
        const cas = casId === undefined ? undefined : this.casIds.get(casId);
        if (cas === undefined) return answer({ ok: false, error: 'cas without a gets' });
        const stored = await mc<boolean>((cb) => c.cas(req.key, req.owner, cas, ttlSeconds(req.ttlUs), cb)).catch(() => false);
        if (!stored) return answer({ ok: false, holder: null });
        return answer({ ok: true }, { kind: 'lock.refreshed', key: req.key, owner: req.owner, ttlUs: req.ttlUs, data: { command: 'cas' } });
      }
      case 'release':
      case 'del': {
        // Who held it is read for the trace alone (the delete itself checks nothing), in the same round trip:
        // on the one connection the server answers the get before it runs the delete.
        const [before, deleted] = await Promise.all([mc<unknown>((cb) => c.get(req.key, cb)), mc<boolean>((cb) => c.del(req.key, cb)).catch(() => false)]);
        if (!deleted || typeof before !== 'string') return answer({ ok: false, holder: null });
        if (before === req.owner) return answer({ ok: true }, { kind: 'lock.released', key: req.key, owner: before, reason: 'released' });
        return answer({ ok: true }, { kind: 'lock.deleted', key: req.key, owner: before, reason: `delete by ${call.client}` });
      }
      case 'exists': {
        const value = await mc<unknown>((cb) => c.get(req.key, cb));
        return answer({ ok: value === req.owner });
      }
      case 'set': {
        const before = await mc<unknown>((cb) => c.get(req.key, cb));
        await mc<boolean>((cb) => c.set(req.key, req.owner, ttlSeconds(req.ttlUs), cb));
        const granted = { kind: 'lock.granted', key: req.key, owner: req.owner, ttlUs: req.ttlUs, data: { command: 'set' } } as const;
        if (typeof before === 'string' && before !== req.owner) {
          return answer({ ok: true }, { kind: 'lock.overwritten', key: req.key, owner: before, reason: `set by ${call.client} overwrote it` }, granted);
        }
        return answer({ ok: true }, granted);
      }
    }
  }

  async close(): Promise<void> {
    this.client.end();
  }
}
