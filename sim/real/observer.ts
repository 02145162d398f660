import { createHash } from 'node:crypto';
import type pg from 'pg';
import type zookeeper from 'node-zookeeper-client';
import type { Etcd3 } from 'etcd3';
import type { EventFields } from '../trace/recorder.js';
import type { LocalClock } from '../world/clock.js';
import { etcdClient } from './adapters/etcd.js';
import { MemcachedNode } from './adapters/memcached.js';
import { pgConnect } from './adapters/postgres.js';
import { serverNowSql } from './adapters/sql-table.js';
import { RedisNode } from './adapters/redis.js';
import { crc32 } from '../stores/postgres.js';
import type { ServerNeed } from './nodes.js';
import type { RawEvent } from './runtime/real-runtime.js';
import type { RunClock } from './runtime/time.js';
import zk from 'node-zookeeper-client';

/** A holding the trace says is open: granted on `node` to `owner`, not yet ended. */
interface Held {
  readonly node: string;
  readonly key: string;
  readonly owner: string;
  readonly client: string;
  readonly fence: number | undefined;
  readonly data: RawEvent['data'];
  /** When a probe first found it gone (true µs), while we wait for a release to explain it. */
  goneAtUs?: number | undefined;
}

const ENDS = new Set(['lock.released', 'lock.expired', 'lock.deleted', 'lock.overwritten', 'lock.lost']);

/** How often held locks are probed, and how long a disappearance waits for the releasing client's own report. */
const PROBE_EVERY_MS = 25;
const GRACE_MS = 300;

type Probe = (h: Held) => Promise<boolean>;

/** A probe that has not answered in this long tells nothing this round. */
const PROBE_TIMEOUT_MS = 500;

/** `p`'s answer, or undefined when it fails or takes longer than `ms`. */
function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  return Promise.race([p.catch(() => undefined), late]).finally(() => clearTimeout(timer));
}

/**
 * Watches the real servers for what no client sees happen: a lock that
 * expires, or is lost in a restart, an ended session, a terminated backend.
 * It learns from the clients' events which locks are held and probes each
 * on its server with a connection of its own; a lock that is gone without a
 * release to explain it is recorded as the store node's event, stamped when
 * it was first seen gone — as the simulated store would have recorded it.
 */
export class TruthObserver {
  private readonly held = new Map<string, Held>();
  private readonly probes = new Map<string, Probe>();
  private readonly closers: Array<() => Promise<void> | void> = [];
  /** Store nodes restarted during the run: a lock gone after that was lost in the restart. */
  private readonly restarted = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  /** Holdings being probed now: a probe that hangs (a server that is down or stopped) holds up only its own. */
  private readonly probing = new Set<string>();

  constructor(
    private readonly needs: readonly ServerNeed[],
    private readonly urls: ReadonlyMap<string, string>,
    private readonly clock: RunClock,
    private readonly machines: ReadonlyMap<string, LocalClock>,
    /** The scenario's client → machine, for tables kept on the client's clock. */
    private readonly clientMachines: ReadonlyMap<string, string>,
    private readonly emit: (e: RawEvent) => void,
    /** Store nodes that hold a lock together: their lock events carry the group, as the clients' do. */
    private readonly groups: ReadonlyMap<string, { group: string; quorum: number }> = new Map(),
  ) {}

  async open(): Promise<void> {
    for (const need of this.needs) this.probes.set(need.node, await this.makeProbe(need, this.urls.get(need.node)!));
    this.timer = setInterval(() => void this.tick(), PROBE_EVERY_MS);
  }

  /** Reads every event of the run as it arrives. */
  see(e: RawEvent): void {
    if (e.owner === undefined || e.key === undefined) return;
    const id = `${e.actor}\u0000${e.owner}`;
    if (e.kind === 'lock.granted') {
      this.held.set(id, { node: e.actor, key: e.key, owner: e.owner, client: e.peer ?? e.owner.split(':')[0]!, fence: e.fence, data: e.data });
    } else if (ENDS.has(e.kind)) {
      this.held.delete(id);
    }
  }

  /** A store node went down (a restart fault): what it held and does not hold when it is back was lost in the restart. */
  noteRestart(node: string, atUs = this.clock.nowUs()): void {
    this.restarted.set(node, atUs);
  }

  private async tick(): Promise<void> {
    const now = this.clock.nowUs();
    await Promise.all(
      [...this.held.entries()].map(async ([id, h]) => {
        const probe = this.probes.get(h.node);
        if (probe === undefined || this.probing.has(id)) return;
        this.probing.add(id);
        try {
          const still = await withTimeout(probe(h), PROBE_TIMEOUT_MS);
          // A server that cannot be asked (down, paused) tells nothing yet.
          if (still === undefined) return;
          if (still) {
            h.goneAtUs = undefined;
            return;
          }
          h.goneAtUs ??= now;
          if (now - h.goneAtUs >= GRACE_MS * 1000 && this.held.get(id) === h) {
            this.held.delete(id);
            this.recordLoss(h, h.goneAtUs);
          }
        } finally {
          this.probing.delete(id);
        }
      }),
    );
  }

  private recordLoss(h: Held, atUs: number): void {
    const need = this.needs.find((n) => n.node === h.node)!;
    const base: EventFields = { key: h.key, owner: h.owner, fence: h.fence, peer: h.client };
    const restartedAt = this.restarted.get(h.node);
    if (restartedAt !== undefined && (need.server === 'redis' || need.server === 'memcached')) {
      const why = need.server === 'redis' ? 'restart without persistence' : 'restart: memcached keeps nothing across a restart';
      this.store(h.node, need.machine, 'lock.lost', { ...base, reason: why }, atUs);
      return;
    }
    switch (need.protocol) {
      case 'redis':
      case 'redlock':
        this.store(h.node, need.machine, 'lock.expired', { ...base, reason: 'TTL ran out on the server clock' }, atUs);
        return;
      case 'memcached':
        this.store(h.node, need.machine, 'lock.expired', { ...base, reason: 'exptime reached on memcached\u2019s clock' }, atUs);
        return;
      case 'table':
        this.store(h.node, need.machine, 'lock.expired', { ...base, reason: 'expires_at passed' }, atUs);
        return;
      case 'advisory':
        this.store(h.node, need.machine, 'session.ended', { peer: h.client, reason: 'the backend holding it is gone', data: { what: 'connection' } }, atUs);
        this.store(h.node, need.machine, 'lock.lost', { ...base, reason: 'session ended' }, atUs);
        return;
      case 'zookeeper':
      case 'zookeeper-recipe':
        this.store(h.node, need.machine, 'session.ended', { peer: h.client, reason: 'session expired', data: { what: 'session' } }, atUs);
        this.store(h.node, need.machine, 'lock.lost', { ...base, reason: 'session expired' }, atUs);
        return;
      case 'etcd':
        this.store(h.node, need.machine, 'lock.expired', { ...base, reason: 'lease expired' }, atUs);
        return;
    }
  }

  private store(node: string, machine: string, kind: string, f: EventFields, atUs: number): void {
    const g = kind.startsWith('lock.') ? this.groups.get(node) : undefined;
    const data = g === undefined ? f.data : { ...f.data, group: g.group, quorum: g.quorum };
    const e = {
      timeUs: atUs,
      kind,
      actor: node,
      machine,
      localUs: this.machines.get(machine)?.read(atUs),
      key: f.key,
      owner: f.owner,
      fence: f.fence,
      peer: f.peer,
      reason: f.reason,
      data,
    };
    const raw = JSON.parse(JSON.stringify(e)) as RawEvent;
    this.see(raw);
    this.emit(raw);
  }

  private async makeProbe(need: ServerNeed, url: string): Promise<Probe> {
    switch (need.protocol) {
      case 'redis':
      case 'redlock': {
        const n = new RedisNode(need.node, url);
        await n.open().catch(() => undefined);
        this.closers.push(() => n.close());
        return (h) => n.holds(h.key, h.owner);
      }
      case 'memcached': {
        // The adapter makes itself a fresh connection after a refused request; one that hangs is replaced too.
        let n = new MemcachedNode(need.node, url);
        this.closers.push(() => n.close());
        return async (h) => {
          const a = await withTimeout(n.handle({ op: 'get', key: h.key }, { client: 'observer', msg: 0 }), PROBE_TIMEOUT_MS / 2);
          if (a === undefined) {
            void n.close();
            n = new MemcachedNode(need.node, url);
            throw new Error(`${need.node} did not answer`);
          }
          return a.reply.holder === h.owner;
        };
      }
      case 'advisory': {
        const c: pg.Client = await pgConnect(url, 'locklab-observer');
        this.closers.push(() => c.end().catch(() => undefined));
        return async (h) => {
          const r = await c.query<{ app: string }>(
            "SELECT a.application_name AS app FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.classid = 0 AND l.objid = $1 AND l.granted",
            [crc32(h.key)],
          );
          return r.rows.some((row) => row.app === h.client);
        };
      }
      case 'table': {
        const c: pg.Client = await pgConnect(url, 'locklab-observer');
        this.closers.push(() => c.end().catch(() => undefined));
        return async (h) => {
          const r = await c.query<{ key_token: string; key_expiration: number; now_s: number }>(
            // Symfony's PdoStore names the row by the key's SHA-256; a hand-written table by the key itself.
            `SELECT key_token, key_expiration, ${serverNowSql(need.database ?? 'postgresql')} AS now_s FROM lock_keys WHERE key_id = $1 OR key_id = $2`,
            [h.key, createHash('sha256').update(h.key).digest('hex')],
          );
          const row = r.rows[0];
          if (row === undefined || row.key_token !== h.owner) return false;
          // A table on the client's clock expires by the owner's clock; Symfony's by the server's.
          const machine = this.clientMachines.get(h.client);
          const clientClock = h.data?.clock === 'client' && machine !== undefined ? this.machines.get(machine) : undefined;
          const nowS = clientClock === undefined ? row.now_s : Math.floor(clientClock.read(this.clock.nowUs()) / 1_000_000);
          return row.key_expiration > nowS;
        };
      }
      case 'zookeeper':
      case 'zookeeper-recipe': {
        const c: zookeeper.Client = zk.createClient(url.replace(/^zookeeper:\/\//, ''), { sessionTimeout: 10_000, spinDelay: 100, retries: 0 });
        await new Promise<void>((resolve) => {
          c.once('connected', () => resolve());
          c.connect();
          setTimeout(resolve, 5_000);
        });
        this.closers.push(() => c.close());
        return (h) =>
          new Promise((resolve, reject) => {
            const path = typeof h.data?.node === 'string' ? h.data.node : `/${h.key}`;
            c.getData(path, (err: unknown, data: Buffer | undefined) => {
              if (err !== null && err !== undefined) {
                const code = (err as { getCode?: () => number }).getCode?.();
                if (code === zk.Exception.NO_NODE) resolve(false);
                else reject(err instanceof Error ? err : new Error(String(err)));
                return;
              }
              resolve(data?.toString() === h.owner);
            });
          });
      }
      case 'etcd': {
        const c: Etcd3 = etcdClient(url);
        this.closers.push(() => c.close());
        return async (h) => {
          const path = typeof h.data?.key === 'string' ? h.data.key : h.key;
          return (await c.get(path).exec()).kvs.length > 0;
        };
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    for (const close of this.closers) await close();
  }
}
