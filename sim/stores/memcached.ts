import type { Timer } from '../kernel/kernel.js';
import type { FaultSpec, Scenario, StoreSpecBase } from '../scenario/types.js';
import { msToUs, US_PER_S } from '../time.js';
import { LocalClock } from '../world/clock.js';
import type { Caller } from '../world/endpoint.js';
import type { Machine } from '../world/machine.js';

import type { World } from '../world/world.js';
import { machineRef } from './checks.js';
import { deployedNodeFor, deployNodes, nodeSpec } from './deploy.js';
import { MemcachedDriver, type CasCommand, type MemcachedReply } from './memcached-driver.js';
import type { Capabilities, LockOp, StoreCheck, StoreInstance, StoreKind, StoreNode } from './types.js';
import { storeSchema } from './schema-of.js';

export interface MemcachedSpec extends StoreSpecBase {
  kind: 'memcached';
  name: string;
  machine: string;
  /** The memory budget (`memcached -m`), in bytes; the LRU evicts to stay within it. */
  memoryBytes: number;
  /** Prepended to every key; a deploy may change it. */
  keyPrefix: string;
  /** MemcachedStore's initialTtl: how long save() adds the key for before refresh() sets the TTL asked for. */
  initialTtlMs: number;
  /** false: memcached -M, which never evicts and refuses to store when memory is full. */
  evictions: boolean;
}

export const MEMCACHED_CAPABILITIES: Capabilities = {
  scope: 'remote',
  blocking: false,
  expiring: true,
  sharing: false,
  fencingToken: null,
  losesLockWhen: [
    'TTL expires (whole seconds on a once-a-second clock: up to 1 s before the TTL the client asked for)',
    'LRU eviction under memory pressure, even before expiry',
    'restart (memcached keeps nothing)',
    'a TTL over 30 days is read as a Unix timestamp in the past and expires at once',
    'another client deletes it with a plain delete',
  ],
};

/** 64 MiB, memcached's default `-m`. */
export const DEFAULT_MEMORY_BYTES = 64 * 1024 * 1024;
/** memcached reads an exptime above 30 days as an absolute Unix time (protocol.txt). */
export const REALTIME_MAXDELTA_S = 60 * 60 * 24 * 30;
/** memcached bumps an item in its LRU on a read at most once a minute (ITEM_UPDATE_INTERVAL). */
export const ITEM_UPDATE_INTERVAL_S = 60;
/**
 * Bytes a Symfony lock item takes besides its key: the item header (48), the
 * CAS value (8), the key's terminator (1), the 44-character base64 token and
 * the value's CRLF (2). Slab-class rounding is left out.
 */
export const LOCK_ITEM_OVERHEAD_BYTES = 48 + 8 + 1 + 44 + 2;

interface Item {
  readonly owner: string;
  readonly client: string;
  readonly casId: number;
  /** memcached's exptime, in its own whole seconds (`current_time` units). */
  readonly exptime: number;
  readonly bytes: number;
  /** Filler bytes written before this item last moved to the head of the LRU. */
  fillerMark: number;
  /** `current_time` when it last moved to the head. */
  bumpedAt: number;
  timer: Timer | undefined;
}

/** Other traffic writing items at a steady rate (a memory-pressure fault). */
interface FillerStream {
  readonly startUs: number;
  readonly endUs: number;
  readonly writesPerSec: number;
  readonly itemBytes: number;
}

/**
 * One memcached server, as protocol.txt and Symfony's MemcachedStore use it:
 * `add` stores only if the key is absent; `gets` returns the value and its CAS
 * unique; `cas` stores only if the item is unchanged since; `delete` is
 * unconditional; `set` overwrites.
 *
 * Time: memcached keeps `current_time`, whole seconds since the process
 * started, advanced by a timer once a second on CLOCK_MONOTONIC. An item set
 * with exptime n seconds expires when `current_time` reaches the value it had
 * at the set plus n, so it lives between n − 1 and n seconds, depending on
 * where in the second it was set. A wall-clock jump does not move it; clock
 * drift does. The phase of the tick is drawn from the seed at each start.
 *
 * Memory: one LRU over the memory budget. Real memcached keeps an LRU per slab
 * class and moves pages between classes (slab_automove); the model lets
 * other items evict the lock whatever their size. Filler items from a
 * memory-pressure fault are counted, not stored one by one: an item is
 * evicted when it, the lock items newer than it and the filler bytes written
 * since it last moved to the head no longer fit.
 */
export class MemcachedNode implements StoreNode {
  readonly name: string;
  readonly machine: Machine;
  private readonly items = new Map<string, Item>();
  private readonly streams: FillerStream[] = [];
  private up = true;
  private nextCas = 1;
  /** The server's CLOCK_MONOTONIC, offset so that it reads whole seconds at memcached's ticks. */
  private ticks!: LocalClock;
  private evictionTimer: Timer | undefined;

  constructor(
    private readonly world: World,
    private readonly spec: MemcachedSpec,
  ) {
    this.name = spec.name;
    this.machine = world.machine(spec.machine);
    this.startProcess();
    // A monotonic clock ignores steps but runs at the machine's rate.
    this.machine.onClockChange(() => {
      this.ticks.setDrift(this.world.nowUs, this.machine.clock.driftPpm);
      for (const [key, item] of this.items) this.plan(key, item);
    });
  }

  isUp(): boolean {
    return this.up;
  }

  /** memcached's `current_time`: whole seconds on its ticking clock. */
  currentTime(): number {
    return Math.floor(this.ticks.read(this.world.nowUs) / US_PER_S);
  }

  /** The true time of memcached's next tick after now: when `current_time` next advances. */
  nextTickUs(): number {
    return this.ticks.trueTimeAt((this.currentTime() + 1) * US_PER_S, this.world.nowUs);
  }

  /** Lock items held now, least recently used first. */
  keys(): string[] {
    return [...this.items.keys()];
  }

  private startProcess(): void {
    const phaseUs = this.world.rng.stream(`memcached:${this.name}`).int(0, US_PER_S - 1);
    this.ticks = new LocalClock(0, this.machine.clock.driftPpm);
    this.ticks.jump(this.world.nowUs, phaseUs - this.ticks.read(this.world.nowUs));
    this.nextCas = 1;
  }

  handle(req: LockOp | CasCommand, caller: Caller): MemcachedReply {
    this.expireIfDue(req.key);
    const item = this.items.get(req.key);
    // memcached -M: with memory full, a store command fails instead of evicting (memcached allocates the new item before it frees the old).
    const storing = req.op === 'acquire' || req.op === 'set' || (req.op === 'refresh' && 'casId' in req && item?.casId === req.casId);
    if (storing && !this.spec.evictions && !(req.op === 'acquire' && item !== undefined) && !this.fits(req.key))
      return { ok: false, error: 'SERVER_ERROR out of memory storing object' };
    switch (req.op) {
      case 'acquire':
        // add: NOT_STORED when the key exists; memcached does not say whose it is.
        if (item !== undefined) return { ok: false };
        this.store(req.key, req.owner, req.ttlUs, caller, undefined);
        return { ok: true };
      case 'get':
        if (item === undefined) return { ok: true, holder: null };
        this.bumpOnRead(req.key, item);
        return { ok: true, holder: item.owner, casId: item.casId };
      case 'refresh':
        if (!('casId' in req)) return { ok: false, error: 'memcached has no compare-and-extend: use gets, then cas' };
        if (item === undefined) return { ok: false, holder: null };
        if (item.casId !== req.casId) return { ok: false, holder: item.owner };
        if (item.owner !== req.owner) {
          this.drop(req.key, item, 'lock.overwritten', `cas by ${caller.process} replaced it`, caller);
          this.store(req.key, req.owner, req.ttlUs, caller, undefined);
        } else {
          this.store(req.key, req.owner, req.ttlUs, caller, item);
        }
        return { ok: true };
      case 'set':
        if (item !== undefined && item.owner !== req.owner) {
          this.drop(req.key, item, 'lock.overwritten', `set by ${caller.process} overwrote it`, caller);
          this.store(req.key, req.owner, req.ttlUs, caller, undefined);
        } else {
          this.store(req.key, req.owner, req.ttlUs, caller, item);
        }
        return { ok: true };
      case 'del':
        if (item === undefined) return { ok: false, holder: null };
        if (item.owner === req.owner) this.drop(req.key, item, 'lock.released', 'released', caller);
        else this.drop(req.key, item, 'lock.deleted', `plain delete by ${caller.process}`, caller);
        return { ok: true };
      case 'release':
        return { ok: false, error: 'memcached has no compare-and-delete: use gets, cas, then delete' };
      case 'exists':
        return { ok: item !== undefined && item.owner === req.owner };
    }
  }

  restart(downUs: number): void {
    if (!this.up) return;
    this.up = false;
    const lost = this.items.size;
    const backAtUs = this.world.nowUs + downUs;
    // Everything is gone with the process, but nobody can be granted a key while the server is down: a lock
    // whose exptime comes first ends then, and the others end when the empty server is back (as for Redis).
    const endAtRestart: Array<{ key: string; item: Item }> = [];
    for (const [key, item] of [...this.items]) {
      this.items.delete(key);
      this.world.kernel.cancel(item.timer);
      const expiresAtUs = this.ticks.trueTimeAt(item.exptime * US_PER_S, this.world.nowUs);
      if (expiresAtUs < backAtUs) {
        this.world.kernel.at(expiresAtUs, () => this.recordEnd(key, item, 'lock.expired', 'exptime reached on memcached\u2019s once-a-second clock'));
      } else {
        endAtRestart.push({ key, item });
      }
    }
    this.world.kernel.cancel(this.evictionTimer);
    this.world.record('store.down', this.name, this.machine, { reason: 'restart', data: { persistence: 'none', keysLost: lost } });
    this.world.kernel.after(downUs, () => {
      for (const { key, item } of endAtRestart) this.recordEnd(key, item, 'lock.lost', 'restart: memcached keeps nothing across a restart');
      this.up = true;
      this.startProcess();
      this.world.record('store.up', this.name, this.machine, { data: { keysKept: 0 } });
    });
  }

  /** The `eviction` fault: the item for `key` (or the least recently used lock item) goes now. */
  evict(key: string | null): void {
    if (!this.up) return;
    const target = key ?? this.items.keys().next().value;
    if (target === undefined) return;
    const candidates = key === null ? [target] : [target, this.spec.keyPrefix + target];
    for (const k of candidates) {
      const item = this.items.get(k);
      if (item !== undefined) {
        this.drop(k, item, 'lock.lost', 'evicted (eviction fault)', undefined);
        this.planEviction();
        return;
      }
    }
  }

  /** The `memory-pressure` fault: other items written at `writesPerSec` of `itemBytes` each, for `durationUs`. */
  pressure(durationUs: number, writesPerSec: number, itemBytes: number): void {
    const now = this.world.nowUs;
    this.streams.push({ startUs: now, endUs: now + durationUs, writesPerSec, itemBytes });
    this.world.record('store.pressure', this.name, this.machine, {
      data: { durationUs, writesPerSec, itemBytes, memoryBytes: this.spec.memoryBytes },
    });
    this.planEviction();
  }

  /** Filler bytes written by all memory-pressure faults up to true time `t`. */
  private fillerBytesAt(t: number): number {
    let bytes = 0;
    for (const s of this.streams) {
      if (t <= s.startUs) continue;
      const elapsedUs = Math.min(t, s.endUs) - s.startUs;
      bytes += Math.floor((elapsedUs * s.writesPerSec) / US_PER_S) * s.itemBytes;
    }
    return bytes;
  }

  private store(key: string, owner: string, ttlUs: number, caller: Caller, previous: Item | undefined): void {
    // The client library rounds the TTL up to whole seconds (Symfony: ceil).
    const ttlS = Math.ceil(ttlUs / US_PER_S);
    const now = this.currentTime();
    const absolute = ttlS > REALTIME_MAXDELTA_S;
    // An exptime over 30 days is a Unix time; one from January 1970 is long past, which memcached stores as "expired".
    const exptime = absolute ? 1 : now + ttlS;
    if (previous !== undefined) this.world.kernel.cancel(previous.timer);
    this.items.delete(key);
    const item: Item = {
      owner,
      client: previous?.owner === owner ? previous.client : caller.process,
      casId: this.nextCas++,
      exptime,
      bytes: LOCK_ITEM_OVERHEAD_BYTES + key.length,
      fillerMark: this.fillerBytesAt(this.world.nowUs),
      bumpedAt: now,
      timer: undefined,
    };
    this.items.set(key, item);
    const expiresAtUs = absolute ? this.world.nowUs : this.ticks.trueTimeAt(exptime * US_PER_S, this.world.nowUs);
    const data = { expiresLocalUs: this.machine.clock.read(expiresAtUs), exptimeS: absolute ? ttlS : exptime, currentTimeS: now };
    const kind = previous !== undefined && previous.owner === owner ? 'lock.refreshed' : 'lock.granted';
    this.world.record(kind, this.name, this.machine, { key, owner, ttlUs: ttlS * US_PER_S, peer: caller.process, msg: caller.msg, data });
    if (absolute) {
      this.drop(key, item, 'lock.expired', `exptime ${ttlS} s is over 30 days, so memcached read it as a Unix time in 1970: already past`, undefined);
      return;
    }
    this.plan(key, item);
    this.planEviction();
  }

  /** Whether an item for `key` fits beside the lock items and other traffic's items now (memcached -M evicts nothing to make room). */
  private fits(key: string): boolean {
    let used = this.fillerBytesAt(this.world.nowUs);
    for (const it of this.items.values()) used += it.bytes;
    return used + LOCK_ITEM_OVERHEAD_BYTES + key.length <= this.spec.memoryBytes;
  }

  private bumpOnRead(key: string, item: Item): void {
    const now = this.currentTime();
    if (now - item.bumpedAt < ITEM_UPDATE_INTERVAL_S) return;
    item.bumpedAt = now;
    item.fillerMark = this.fillerBytesAt(this.world.nowUs);
    this.items.delete(key);
    this.items.set(key, item);
    this.planEviction();
  }

  private drop(key: string, item: Item, kind: string, reason: string, caller: Caller | undefined): void {
    this.items.delete(key);
    this.world.kernel.cancel(item.timer);
    this.recordEnd(key, item, kind, reason, caller);
  }

  private recordEnd(key: string, item: Item, kind: string, reason: string, caller?: Caller): void {
    this.world.record(kind, this.name, this.machine, { key, owner: item.owner, peer: caller?.process ?? item.client, msg: caller?.msg, reason });
  }

  private expireIfDue(key: string): void {
    const item = this.items.get(key);
    if (item !== undefined && this.currentTime() >= item.exptime)
      this.drop(key, item, 'lock.expired', 'exptime reached on memcached\u2019s once-a-second clock', undefined);
  }

  /** Plans the item's expiry for the tick at which `current_time` reaches its exptime. */
  private plan(key: string, item: Item): void {
    this.world.kernel.cancel(item.timer);
    const at = this.ticks.trueTimeAt(item.exptime * US_PER_S, this.world.nowUs);
    item.timer = this.world.kernel.at(at, () => {
      if (this.items.get(key) !== item) return;
      if (this.currentTime() >= item.exptime) this.expireIfDue(key);
      else this.plan(key, item);
    });
  }

  /** Bytes that must fit for `item` to stay: itself, the lock items newer than it, and the filler written since it moved to the head. */
  private lockBytesFrom(key: string): number {
    let bytes = 0;
    let seen = false;
    for (const [k, item] of this.items) {
      if (k === key) seen = true;
      if (seen) bytes += item.bytes;
    }
    return bytes;
  }

  /** Evicts what no longer fits now, then plans the moment the least recently used lock item stops fitting. */
  private planEviction(): void {
    this.world.kernel.cancel(this.evictionTimer);
    this.evictionTimer = undefined;
    // memcached -M never evicts: other traffic's writes fail once memory is full, and locks stay.
    if (!this.spec.evictions) return;
    const budget = this.spec.memoryBytes;
    for (;;) {
      const oldest = this.items.entries().next().value;
      if (oldest === undefined) return;
      const [key, item] = oldest;
      const fixed = this.lockBytesFrom(key) - item.fillerMark;
      const now = this.world.nowUs;
      if (fixed + this.fillerBytesAt(now) > budget) {
        this.drop(key, item, 'lock.lost', 'evicted (LRU): memory full, and it was the least recently used item', undefined);
        continue;
      }
      const lastUs = this.streams.reduce((m, s) => Math.max(m, s.endUs), now);
      if (fixed + this.fillerBytesAt(lastUs) <= budget) return;
      // The filler total only grows: find the first microsecond at which it no longer fits.
      let lo = now;
      let hi = lastUs;
      while (hi - lo > 1) {
        const mid = lo + Math.floor((hi - lo) / 2);
        if (fixed + this.fillerBytesAt(mid) > budget) hi = mid;
        else lo = mid;
      }
      this.evictionTimer = this.world.kernel.at(hi, () => this.planEviction());
      return;
    }
  }
}

/** The Memcached store kind: one server, Symfony's MemcachedStore protocol. */
export const MEMCACHED: StoreKind = {
  kind: 'memcached',
  title: 'Memcached (single server)',
  capabilities: MEMCACHED_CAPABILITIES,
  hazardScenario: 'memcached-eviction',
  faults: ['store-restart', 'eviction', 'memory-pressure', 'deploy'],
  deployable: ['keyPrefix', 'machine'],
  plainGetSet: true,
  schema: storeSchema({
    kind: 'memcached',
    description:
      "One memcached server used as Symfony's MemcachedStore does: add to acquire, gets + cas to refresh and before a delete. Expiry is in whole seconds on a once-a-second clock; the LRU evicts items under memory pressure, even before they expire; a restart loses everything. A TTL under 1 s is refused by refresh() at run time, after save() has added the key for initialTtlMs.",
    name: { default: 'memcached', description: "The server's node name in the trace and in faults." },
    machine: { description: 'The machine the server runs on.' },
    properties: {
      memoryBytes: {
        type: 'integer',
        minimum: 1024,
        maximum: 1099511627776,
        default: DEFAULT_MEMORY_BYTES,
        description:
          "The memory budget (memcached -m), in bytes; 64 MiB is memcached's default. The LRU evicts the least recently used items to stay within it.",
      },
      keyPrefix: { type: 'string', maxLength: 200, default: '', description: 'Prepended to every key the server sees; a deploy may change it.' },
      initialTtlMs: {
        type: 'number',
        minimum: 1000,
        maximum: 2592000000,
        default: 300000,
        description: "MemcachedStore's initialTtl (whole seconds, at least 1): save() adds the key for this long before refresh() applies the client's TTL.",
      },
      evictions: {
        type: 'boolean',
        default: true,
        description: 'false runs memcached -M: nothing is evicted, and an add or cas that does not fit in memory fails (MemcachedStore sees a taken key).',
      },
    },
  }),
  normalize(input: Record<string, unknown>, check: StoreCheck): MemcachedSpec {
    const spec: MemcachedSpec = {
      kind: 'memcached',
      name: (input.name as string | undefined) ?? 'memcached',
      machine: input.machine as string,
      memoryBytes: (input.memoryBytes as number | undefined) ?? DEFAULT_MEMORY_BYTES,
      keyPrefix: (input.keyPrefix as string | undefined) ?? '',
      initialTtlMs: (input.initialTtlMs as number | undefined) ?? 300_000,
      evictions: (input.evictions as boolean | undefined) ?? true,
    };
    machineRef(check, spec.machine, 'machine');
    return spec;
  },
  nodeNames: (spec: StoreSpecBase, scenario?: Omit<Scenario, 'store'>) => deployNodes(spec, scenario).map((n) => n.name),
  create(world: World, spec: StoreSpecBase, scenario: Scenario): StoreInstance {
    const mc = spec as MemcachedSpec;
    const nodes = new Map(deployNodes(spec, scenario).map((n) => [n.name, new MemcachedNode(world, nodeSpec(mc, n))]));
    return {
      nodes,
      fault(f: FaultSpec) {
        const node = nodes.get(f.kind === 'eviction' || f.kind === 'memory-pressure' ? f.target : '');
        if (f.kind === 'eviction') node?.evict(f.key);
        else if (f.kind === 'memory-pressure') node?.pressure(msToUs(f.durationMs), f.writesPerSec, f.itemBytes);
      },
    };
  },
  driver(spec: StoreSpecBase) {
    const mc = spec as MemcachedSpec;
    return new MemcachedDriver({ name: spec.name }, mc.keyPrefix, msToUs(Math.ceil(mc.initialTtlMs / 1000) * 1000), deployedNodeFor(spec));
  },
};
