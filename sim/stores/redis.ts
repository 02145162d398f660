import { LIMITS } from '../scenario/limits.js';
import type { RedisSpec, Scenario, StoreSpecBase } from '../scenario/types.js';
import { machineRef } from './checks.js';
import { SingleNodeDriver } from './single-node-driver.js';
import { deployedNodeFor, deployNodes, nodeSpec } from './deploy.js';
import { US_PER_S } from '../time.js';
import type { Timer } from '../kernel/kernel.js';
import type { Caller } from '../world/endpoint.js';
import type { Machine } from '../world/machine.js';
import type { World } from '../world/world.js';
import type { Capabilities, LockOp, LockReply, StoreCheck, StoreKind, StoreNode } from './types.js';
import { storeSchema } from './schema-of.js';

export const REDIS_CAPABILITIES: Capabilities = {
  scope: 'remote',
  blocking: false,
  expiring: true,
  sharing: true,
  fencingToken: 'INCR counter beside the key',
  losesLockWhen: ['TTL expires', 'restart without persistence', 'server clock jumps forward', 'another client DELs it'],
};

/** Redis's own words when INCR would pass its largest integer. */
export const INCR_OVERFLOW = 'ERR increment or decrement would overflow';

interface Version {
  /** Server clock when this version was written (for AOF fsync loss). */
  readonly writtenLocalUs: number;
  readonly expiresLocalUs: number;
}

interface Entry {
  /** The key as clients name it; the map holding entries is keyed by `entryId`. */
  readonly key: string;
  readonly owner: string;
  readonly client: string;
  /** A reader of a shared lock; the exclusive holder has no such flag. A holder may change sides (promote, demote). */
  shared: boolean;
  fence: number | undefined;
  /** Newest last; older versions are kept only as long as an AOF crash could roll back to them. */
  versions: Version[];
  /** The pending expiry, re-planned whenever the expiry or the server clock changes. */
  timer: Timer | undefined;
  /**
   * Set when a crash lost this key. It is recorded as lost when the server
   * comes back: until then nobody can be granted it, so it still protects its
   * holder (the point of delaying a restart past the longest TTL).
   */
  lostInCrash?: string;
  /** The reply that refuses another client while this entry holds the key, made at the first refusal. */
  refusal: LockReply | undefined;
}

/**
 * One Redis server, as STORES.md describes it: `SET key token NX PX ttl`
 * acquires; release and refresh compare the token in a Lua script first;
 * expiry is an absolute time on the server's own clock (so a clock jump
 * moves it, and it keeps passing while the server is down); a restart keeps
 * only what persistence wrote; an INCR counter per key is the fencing token.
 */
export class RedisNode implements StoreNode {
  readonly name: string;
  readonly machine: Machine;
  private readonly keys = new Map<string, Entry>();
  /** Fencing counters by key, with their recent values for AOF rollback. */
  private readonly counters = new Map<string, Version & { value: number }>();
  private readonly counterHistory = new Map<string, Array<{ writtenLocalUs: number; value: number }>>();
  private up = true;
  /** How many reader entries exist, so exclusive-only traffic never builds reader ids. */
  private readers = 0;

  constructor(
    private readonly world: World,
    private readonly spec: RedisSpec,
  ) {
    this.name = spec.name;
    this.machine = world.machine(spec.machine);
    this.machine.onClockChange(() => this.replanAll());
  }

  isUp(): boolean {
    return this.up;
  }

  private get localNow(): number {
    return this.machine.clock.read(this.world.nowUs);
  }

  handle(req: LockOp, caller: Caller): LockReply {
    const held = this.expireIfDue(req.key);
    // A shared lock's readers are kept beside the key, one entry each (Symfony's saveRead).
    let mine: Entry | undefined;
    if (this.readers > 0 && 'owner' in req) mine = this.expireIfDue(readerId(req.key, req.owner));
    const entry = mine ?? held;
    switch (req.op) {
      case 'get':
        return { ok: true, holder: entry?.owner ?? this.firstReader(req.key) ?? null };
      case 'acquire': {
        if (entry !== undefined && entry.owner === req.owner) {
          const shared = req.shared === true;
          // Promoting a read lock: allowed only when no one else reads (Symfony's save script).
          if (entry.shared && !shared && this.otherReader(req.key, req.owner) !== undefined)
            return { ok: false, holder: this.otherReader(req.key, req.owner)! };
          if (entry.shared !== shared) this.convert(entry, shared);
          // Symfony's save script: the same token again only extends the lease.
          this.extend(entry, req.ttlUs, caller);
          return { ok: true, fence: entry.fence };
        }
        // Every client refused while one holding lasts gets the same reply: it is never changed.
        if (entry !== undefined) return (entry.refusal ??= Object.freeze({ ok: false, holder: entry.owner }));
        if (req.shared === true) {
          this.grant(req.key, req.owner, req.ttlUs, caller, true);
          return { ok: true };
        }
        const reader = this.firstReader(req.key);
        if (reader !== undefined) return { ok: false, holder: reader };
        if (this.counterFull(req.key)) return { ok: false, error: INCR_OVERFLOW };
        return { ok: true, fence: this.grant(req.key, req.owner, req.ttlUs, caller, false) };
      }
      case 'set':
        if (this.counterFull(req.key)) return { ok: false, error: INCR_OVERFLOW };
        if (entry !== undefined && entry.owner !== req.owner) {
          this.drop(entry, 'lock.overwritten', `SET by ${caller.process} overwrote it`, { peer: caller.process, msg: caller.msg });
        }
        return { ok: true, fence: this.grant(req.key, req.owner, req.ttlUs, caller, false) };
      case 'refresh':
        if (entry === undefined || entry.owner !== req.owner) return { ok: false, holder: entry?.owner ?? null };
        this.extend(entry, req.ttlUs, caller);
        return { ok: true, fence: entry.fence };
      case 'release':
        if (entry === undefined || entry.owner !== req.owner) return { ok: false, holder: entry?.owner ?? null };
        this.drop(entry, 'lock.released', 'released', { peer: caller.process, msg: caller.msg });
        return { ok: true };
      case 'exists':
        return { ok: entry !== undefined && entry.owner === req.owner };
      case 'del': {
        const exclusive = this.keys.get(req.key);
        if (exclusive === undefined) return { ok: false, holder: null };
        if (exclusive.owner === req.owner) this.drop(exclusive, 'lock.released', 'released', { peer: caller.process, msg: caller.msg });
        else this.drop(exclusive, 'lock.deleted', `plain DEL by ${caller.process}`, { peer: caller.process, msg: caller.msg });
        return { ok: true };
      }
    }
  }

  restart(downUs: number): void {
    if (!this.up) return;
    this.up = false;
    const lost = this.crashLosses();
    this.world.record('store.down', this.name, this.machine, { reason: 'restart', data: { persistence: this.spec.persistence, keysLost: lost } });
    this.world.kernel.after(downUs, () => {
      for (const entry of [...this.keys.values()]) if (entry.lostInCrash !== undefined) this.drop(entry, 'lock.lost', entry.lostInCrash, {});
      this.up = true;
      this.world.record('store.up', this.name, this.machine, { data: { keysKept: this.keys.size } });
      for (const id of [...this.keys.keys()]) this.expireIfDue(id);
    });
  }

  /**
   * Applies what a crash loses under the configured persistence and returns
   * how many keys were lost. With `aof-everysec` the AOF is fsynced once a
   * second, so writes since the last whole second of the server's clock are
   * gone: a key granted since then disappears, a refresh since then is undone.
   */
  private crashLosses(): number {
    const mode = this.spec.persistence;
    if (mode === 'aof-always') return 0;
    let lost = 0;
    if (mode === 'none') {
      for (const entry of this.keys.values()) {
        entry.lostInCrash = 'restart without persistence';
        lost++;
      }
      this.counters.clear();
      this.counterHistory.clear();
      return lost;
    }
    const syncedUpTo = Math.floor(this.localNow / US_PER_S) * US_PER_S;
    for (const entry of [...this.keys.values()]) {
      const durable = entry.versions.filter((v) => v.writtenLocalUs <= syncedUpTo);
      if (durable.length === 0) {
        entry.lostInCrash = 'restart lost writes since the last AOF fsync';
        lost++;
      } else if (durable.length < entry.versions.length) {
        entry.versions = durable;
        this.plan(entry);
      }
    }
    for (const [key, history] of this.counterHistory) {
      const durable = history.filter((h) => h.writtenLocalUs <= syncedUpTo);
      const last = durable[durable.length - 1];
      if (last === undefined) this.counters.delete(key);
      else this.counters.set(key, { writtenLocalUs: last.writtenLocalUs, expiresLocalUs: Infinity, value: last.value });
      this.counterHistory.set(key, durable);
    }
    return lost;
  }

  /**
   * Whether the key's counter is at 2^53 − 1, past which a JavaScript number
   * no longer counts one by one (two grants would get the same token). Real
   * INCR refuses at 2^63 − 1 the same way: the script fails before SET, so
   * no lock is granted without a fresh token.
   */
  private counterFull(key: string): boolean {
    return (this.counters.get(key)?.value ?? this.spec.fencingTokenStart - 1) >= Number.MAX_SAFE_INTEGER;
  }

  private nextFence(key: string): number {
    const prev = this.counters.get(key)?.value ?? this.spec.fencingTokenStart - 1;
    const value = prev + 1;
    const now = this.localNow;
    this.counters.set(key, { writtenLocalUs: now, expiresLocalUs: Infinity, value });
    if (this.spec.persistence === 'aof-everysec') {
      const history = this.counterHistory.get(key) ?? [];
      history.push({ writtenLocalUs: now, value });
      pruneHistory(history, now);
      this.counterHistory.set(key, history);
    }
    return value;
  }

  /** Grants `key` to `owner`; returns its fencing token (readers of a shared lock get none). */
  private grant(key: string, owner: string, ttlUs: number, caller: Caller, shared: boolean): number | undefined {
    const fence = shared ? undefined : this.nextFence(key);
    const now = this.localNow;
    const entry: Entry = {
      key,
      owner,
      client: caller.process,
      shared,
      fence,
      versions: [{ writtenLocalUs: now, expiresLocalUs: now + ttlUs }],
      timer: undefined,
      refusal: undefined,
    };
    this.keys.set(entryId(entry), entry);
    if (shared) this.readers++;
    this.world.record('lock.granted', this.name, this.machine, {
      key,
      owner,
      fence,
      ttlUs,
      peer: caller.process,
      msg: caller.msg,
      data: shared ? { expiresLocalUs: now + ttlUs, shared: true } : { expiresLocalUs: now + ttlUs },
    });
    this.plan(entry);
    return fence;
  }

  private extend(entry: Entry, ttlUs: number, caller: Caller): void {
    const now = this.localNow;
    entry.versions.push({ writtenLocalUs: now, expiresLocalUs: now + ttlUs });
    if (this.spec.persistence === 'aof-everysec') pruneHistory(entry.versions, now);
    else entry.versions.splice(0, entry.versions.length - 1);
    this.world.record('lock.refreshed', this.name, this.machine, {
      key: entry.key,
      owner: entry.owner,
      fence: entry.fence,
      ttlUs,
      peer: caller.process,
      msg: caller.msg,
      data: { expiresLocalUs: now + ttlUs },
    });
    this.plan(entry);
  }

  private drop(entry: Entry, kind: string, reason: string, extra: { peer?: string; msg?: number }): void {
    this.keys.delete(entryId(entry));
    if (entry.shared) this.readers--;
    this.world.kernel.cancel(entry.timer);
    this.world.record(kind, this.name, this.machine, {
      key: entry.key,
      owner: entry.owner,
      fence: entry.fence,
      peer: extra.peer ?? entry.client,
      msg: extra.msg,
      reason,
    });
  }

  private expiresAt(entry: Entry): number {
    return entry.versions[entry.versions.length - 1]!.expiresLocalUs;
  }

  /** Drops the entry `id` if its TTL has run out; returns it if it is still there. */
  private expireIfDue(id: string): Entry | undefined {
    const entry = this.keys.get(id);
    if (entry === undefined || this.localNow < this.expiresAt(entry)) return entry;
    this.drop(entry, 'lock.expired', 'TTL ran out on the server clock', {});
    return undefined;
  }

  /** Another reader of `key` than `owner`, if any. */
  private otherReader(key: string, owner: string): string | undefined {
    const prefix = `${key}\u0000`;
    for (const [id, entry] of this.keys) if (entry.shared && id.startsWith(prefix) && entry.owner !== owner) return entry.owner;
    return undefined;
  }

  /** The holder of `entry` changes sides: a reader becomes the writer (with a fencing token of its own), or the writer a reader. */
  private convert(entry: Entry, shared: boolean): void {
    this.keys.delete(entryId(entry));
    if (entry.shared) this.readers--;
    entry.shared = shared;
    if (shared) this.readers++;
    entry.fence = shared ? undefined : this.nextFence(entry.key);
    this.keys.set(entryId(entry), entry);
  }

  /** The owner of some reader of `key`'s shared lock, if it has readers. */
  private firstReader(key: string): string | undefined {
    if (this.readers === 0) return undefined;
    const prefix = `${key}\u0000`;
    for (const [id, entry] of this.keys) if (entry.shared && id.startsWith(prefix)) return entry.owner;
    return undefined;
  }

  /** Plans the expiry of `entry` for the true time at which the server's clock reaches it. */
  private plan(entry: Entry): void {
    this.world.kernel.cancel(entry.timer);
    const at = this.machine.clock.trueTimeAt(this.expiresAt(entry), this.world.nowUs);
    entry.timer = this.world.kernel.at(at, () => {
      if (this.keys.get(entryId(entry)) !== entry) return;
      if (this.localNow >= this.expiresAt(entry)) this.drop(entry, 'lock.expired', 'TTL ran out on the server clock', {});
      else this.plan(entry);
    });
  }

  private replanAll(): void {
    for (const entry of this.keys.values()) this.plan(entry);
  }
}

function readerId(key: string, owner: string): string {
  return `${key}\u0000${owner}`;
}

function entryId(entry: Entry): string {
  return entry.shared ? readerId(entry.key, entry.owner) : entry.key;
}

/**
 * Keeps what an AOF crash could roll back to: every write of the last two
 * seconds and the newest one before them. Older writes are certainly on disk
 * and superseded.
 */
function pruneHistory(history: Array<{ writtenLocalUs: number }>, nowLocalUs: number): void {
  while (history.length > 1 && history[1]!.writtenLocalUs <= nowLocalUs - 2 * US_PER_S) history.shift();
}

/** The Redis store kind: one server, Symfony's RedisStore protocol. */
export const REDIS: StoreKind = {
  kind: 'redis',
  title: 'Redis (single node)',
  capabilities: REDIS_CAPABILITIES,
  hazardScenario: 'pause-past-expiry',
  faults: ['store-restart', 'deploy'],
  deployable: ['keyPrefix', 'machine'],
  plainGetSet: true,
  schema: storeSchema({
    kind: 'redis',
    description: 'A single Redis server: SET NX PX to acquire, token-checked release and refresh, an INCR counter for fencing tokens.',
    name: { default: 'redis' },
    machine: {},
    properties: {
      persistence: { enum: ['none', 'aof-everysec', 'aof-always'], default: 'none' },
      fencingTokenStart: { type: 'integer', minimum: 0, maximum: LIMITS.maxCounterStart, default: 1 },
      keyPrefix: { type: 'string', maxLength: 200, default: '', description: 'Prepended to every key the store sees; a deploy may change it.' },
    },
  }),
  normalize(input: Record<string, unknown>, check: StoreCheck): RedisSpec {
    const spec: RedisSpec = {
      kind: 'redis',
      name: (input.name as string | undefined) ?? 'redis',
      machine: input.machine as string,
      persistence: (input.persistence as RedisSpec['persistence'] | undefined) ?? 'none',
      fencingTokenStart: (input.fencingTokenStart as number | undefined) ?? 1,
      keyPrefix: (input.keyPrefix as string | undefined) ?? '',
    };
    machineRef(check, spec.machine, 'machine');
    return spec;
  },
  nodeNames: (spec: StoreSpecBase, scenario?: Omit<Scenario, 'store'>) => deployNodes(spec, scenario).map((n) => n.name),
  create(world: World, spec: StoreSpecBase, scenario: Scenario) {
    const redis = spec as RedisSpec;
    const nodes = deployNodes(spec, scenario).map((n) => new RedisNode(world, nodeSpec(redis, n)));
    return { nodes: new Map(nodes.map((n) => [n.name, n])) };
  },
  driver(spec: StoreSpecBase) {
    return new SingleNodeDriver({ name: spec.name }, (spec as RedisSpec).keyPrefix, true, deployedNodeFor(spec));
  },
};
