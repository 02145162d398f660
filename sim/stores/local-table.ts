import type { Timer } from '../kernel/kernel.js';
import type { ClientSpec, Scenario } from '../scenario/types.js';
import { DEFER, type Caller } from '../world/endpoint.js';
import type { Machine } from '../world/machine.js';

import type { World } from '../world/world.js';

import type { LockOp, LockReply, StoreNode } from './types.js';

/** One process holding a lock in the kernel's table. */
interface Holder {
  readonly owner: string;
  readonly process: string;
  /** flock() on the same descriptor converts the lock: a holder may change modes. */
  shared: boolean;
}

/** One process blocked in the kernel, waiting for the lock (flock without LOCK_NB, sem_acquire). */
interface Waiter {
  readonly owner: string;
  readonly process: string;
  readonly shared: boolean;
  caller: Caller;
  timer: Timer | undefined;
}

interface Lock {
  readonly holders: Holder[];
  /** Oldest first: freed locks go to waiters in the order they started waiting. */
  readonly waiters: Waiter[];
}

/** What distinguishes one kind of per-machine lock from another. */
export interface LocalLockRules {
  /** flock(LOCK_SH) exists; a SysV semaphore of one unit is exclusive only. */
  readonly sharing: boolean;
}

/**
 * The lock table of one machine's kernel, as flock(2) and SysV semaphores
 * keep it: it lives and dies with the machine, only processes on that machine
 * can reach it, and the kernel frees a process's locks when the process exits.
 * Nothing here expires, and there is no fencing token.
 *
 * A request that cannot be granted either fails at once (LOCK_NB, a try) or,
 * when the client asked to wait, is held in the kernel until the lock frees
 * or its wait runs out. A newcomer is granted whenever it is compatible with
 * the current holders (Linux checks holders, not waiters, so a reader may pass
 * a waiting writer); freed locks go to waiters in FIFO order, stopping at the
 * first waiter that still conflicts, so a waiting writer is not starved by
 * the readers queued behind it.
 */
export class LocalLockNode implements StoreNode {
  readonly name: string;
  readonly machine: Machine;
  private readonly locks = new Map<string, Lock>();
  /** Locks whose file was deleted: still held (and waited on) through open descriptors, by path, but no newcomer finds them. */
  private readonly orphans: Array<{ key: string; lock: Lock }> = [];
  /** Processes of this machine that have exited: a request still in flight from one of them finds no process to serve. */
  private readonly exited = new Set<string>();

  constructor(
    private readonly world: World,
    name: string,
    machine: Machine,
    private readonly rules: LocalLockRules,
  ) {
    this.name = name;
    this.machine = machine;
    world.onProcessExit((p) => {
      if (p.machine === this.machine) this.processExited(p.name);
    });
  }

  /** The kernel is up as long as its machine is; the lab does not model reboots. */
  isUp(): boolean {
    return true;
  }

  handle(req: LockOp, caller: Caller): LockReply | typeof DEFER {
    if (this.exited.has(caller.process)) return { ok: false, error: 'process exited' };
    switch (req.op) {
      case 'acquire':
        return this.acquire(req.key, req.owner, req.shared === true && this.rules.sharing, req.waitUs, caller);
      case 'refresh': {
        // Nothing expires, so there is nothing to extend; the answer only says whether the owner still holds it.
        const holder = this.lock(req.key)?.holders.find((h) => h.owner === req.owner);
        return holder === undefined ? { ok: false, holder: this.firstHolder(req.key) } : { ok: true };
      }
      case 'release':
        return this.release(req.key, req.owner, caller);
      case 'exists':
        return { ok: this.lock(req.key)?.holders.some((h) => h.owner === req.owner) === true };
      case 'get':
      case 'set':
      case 'del':
        // There is no plain GET, SET or DEL on a kernel lock; the scenario check keeps clients from asking.
        return { ok: false, error: `${req.op} is not a ${this.name} operation` };
    }
  }

  private lock(key: string): Lock | undefined {
    return this.locks.get(key);
  }

  private firstHolder(key: string): string | null {
    return this.lock(key)?.holders[0]?.owner ?? null;
  }

  private compatible(lock: Lock, shared: boolean): boolean {
    if (lock.holders.length === 0) return true;
    return shared && lock.holders.every((h) => h.shared);
  }

  private acquire(key: string, owner: string, shared: boolean, waitUs: number | null | undefined, caller: Caller): LockReply | typeof DEFER {
    let lock = this.locks.get(key);
    if (lock === undefined) {
      lock = { holders: [], waiters: [] };
      this.locks.set(key, lock);
    }
    // The same owner again is a retry of an acquire whose reply went missing (it already has the lock), or a
    // conversion on its descriptor: demoting always works, promoting only when nobody else holds it.
    const mine = lock.holders.find((h) => h.owner === owner);
    if (mine !== undefined) {
      if (mine.shared === shared) return { ok: true };
      const other = lock.holders.find((h) => h !== mine);
      if (!shared && other !== undefined) return { ok: false, holder: other.owner };
      mine.shared = shared;
      this.wake(key, lock);
      return { ok: true };
    }
    if (this.compatible(lock, shared)) {
      this.grant(key, lock, { owner, process: caller.process, shared }, caller.msg);
      return { ok: true };
    }
    if (waitUs === undefined) return { ok: false, holder: lock.holders[0]!.owner };

    // A retry while still queued replaces the caller that gave up; it keeps its place in the queue.
    const queued = lock.waiters.find((w) => w.owner === owner);
    const waiter: Waiter = queued ?? { owner, process: caller.process, shared, caller, timer: undefined };
    if (queued !== undefined) {
      this.world.kernel.cancel(queued.timer);
      queued.caller = caller;
    } else {
      lock.waiters.push(waiter);
    }
    if (waitUs !== null) {
      // The wait is timed by this machine's clock, which is also the client's.
      waiter.timer = this.world.kernel.after(this.machine.clock.trueDuration(waitUs), () => this.giveUp(key, waiter));
    }
    this.world.record('lock.queued', this.name, this.machine, {
      key,
      owner,
      peer: caller.process,
      msg: caller.msg,
      data: { position: lock.waiters.indexOf(waiter) + 1, holder: lock.holders[0]!.owner, waitUs: waitUs ?? -1, ...(shared ? { shared: true } : {}) },
    });
    return DEFER;
  }

  private grant(key: string, lock: Lock, holder: Holder, msg: number): void {
    lock.holders.push(holder);
    this.world.record('lock.granted', this.name, this.machine, {
      key,
      owner: holder.owner,
      peer: holder.process,
      msg,
      data: holder.shared ? { shared: true } : undefined,
    });
  }

  private release(key: string, owner: string, caller: Caller): LockReply {
    const orphan = this.orphans.find((o) => o.key === key && o.lock.holders.some((h) => h.owner === owner));
    if (orphan !== undefined && this.lock(key)?.holders.some((h) => h.owner === owner) !== true) {
      // LOCK_UN on the descriptor of a deleted file: it works, and frees nobody a newcomer could be waiting for.
      const lock = orphan.lock;
      lock.holders.splice(
        lock.holders.findIndex((h) => h.owner === owner),
        1,
      );
      this.wakeOrphan(orphan);
      return { ok: true };
    }
    const lock = this.lock(key);
    const i = lock?.holders.findIndex((h) => h.owner === owner) ?? -1;
    if (lock === undefined || i === -1) return { ok: false, holder: this.firstHolder(key) };
    const [holder] = lock.holders.splice(i, 1);
    this.world.record('lock.released', this.name, this.machine, { key, owner, peer: holder!.process, msg: caller.msg, reason: 'released' });
    this.wake(key, lock);
    return { ok: true };
  }

  /** Hands a freed lock to the waiters at the head of the queue, as many as it can take at once. */
  private wake(key: string, lock: Lock): void {
    while (lock.waiters.length > 0) {
      const next = lock.waiters[0]!;
      if (!this.compatible(lock, next.shared)) break;
      lock.waiters.shift();
      this.world.kernel.cancel(next.timer);
      this.grant(key, lock, { owner: next.owner, process: next.process, shared: next.shared }, next.caller.msg);
      next.caller.respond({ ok: true } satisfies LockReply);
    }
    if (lock.holders.length === 0 && lock.waiters.length === 0) this.locks.delete(key);
  }

  /** A waiter's time ran out: it is told no, and whoever queued behind it may now fit. */
  private giveUp(key: string, waiter: Waiter): void {
    const lock = this.lock(key);
    const i = lock?.waiters.indexOf(waiter) ?? -1;
    if (lock === undefined || i === -1) return;
    lock.waiters.splice(i, 1);
    waiter.caller.respond({ ok: false, holder: lock.holders[0]?.owner ?? null } satisfies LockReply);
    this.wake(key, lock);
  }

  /** The kernel closes an exited process's descriptors: its locks are freed and its waits end. */
  private processExited(process: string): void {
    this.exited.add(process);
    for (const o of [...this.orphans]) {
      o.lock.waiters.splice(0, o.lock.waiters.length, ...o.lock.waiters.filter((w) => w.process !== process));
      const before = o.lock.holders.length;
      o.lock.holders.splice(0, o.lock.holders.length, ...o.lock.holders.filter((h) => h.process !== process));
      if (o.lock.holders.length !== before) this.wakeOrphan(o);
      else if (o.lock.holders.length === 0 && o.lock.waiters.length === 0) this.orphans.splice(this.orphans.indexOf(o), 1);
    }
    for (const [key, lock] of [...this.locks]) {
      for (const w of lock.waiters.filter((w) => w.process === process)) {
        this.world.kernel.cancel(w.timer);
        lock.waiters.splice(lock.waiters.indexOf(w), 1);
      }
      for (const h of lock.holders.filter((h) => h.process === process)) {
        lock.holders.splice(lock.holders.indexOf(h), 1);
        this.world.record('lock.released', this.name, this.machine, { key, owner: h.owner, peer: process, reason: 'process exit' });
      }
      this.wake(key, lock);
    }
  }

  /**
   * Deletes every lock in the table at once (systemd RemoveIPC=yes removing a
   * user's semaphores): each holder loses its lock without being told, and
   * each waiter, woken by the removal, takes the lock afresh.
   */
  removeAll(reason: string): void {
    for (const [key, lock] of [...this.locks]) {
      for (const h of lock.holders.splice(0)) {
        this.world.record('lock.lost', this.name, this.machine, { key, owner: h.owner, peer: h.process, reason });
      }
      this.wake(key, lock);
    }
  }

  /**
   * Lock files are deleted (a tmp cleaner, a tmpfs after a reboot): every
   * holder keeps its flock on a file that is gone — it excludes no newcomer,
   * who creates a new file and gets a lock of its own — so its holding ends
   * here in truth. Waiters stay blocked on the old file.
   */
  unlinkFiles(dir: string | null, reason: string): number {
    let deleted = 0;
    for (const [key, lock] of [...this.locks]) {
      if (dir !== null && !key.startsWith(dir.replace(/\/*$/, '/'))) continue;
      this.locks.delete(key);
      deleted++;
      for (const h of lock.holders) this.world.record('lock.deleted', this.name, this.machine, { key, owner: h.owner, peer: h.process, reason });
      if (lock.holders.length > 0 || lock.waiters.length > 0) this.orphans.push({ key, lock });
    }
    return deleted;
  }

  /** A deleted file's lock passes to its own waiters, who then hold a lock nobody else can see. */
  private wakeOrphan(o: { key: string; lock: Lock }): void {
    const lock = o.lock;
    while (lock.waiters.length > 0 && this.compatible(lock, lock.waiters[0]!.shared)) {
      const next = lock.waiters.shift()!;
      this.world.kernel.cancel(next.timer);
      this.grant(o.key, lock, { owner: next.owner, process: next.process, shared: next.shared }, next.caller.msg);
      next.caller.respond({ ok: true } satisfies LockReply);
    }
    if (lock.holders.length === 0 && lock.waiters.length === 0) this.orphans.splice(this.orphans.indexOf(o), 1);
  }

  /** How many locks are held now (each is one semaphore or one locked file). */
  heldCount(): number {
    let n = 0;
    for (const lock of this.locks.values()) if (lock.holders.length > 0) n++;
    return n;
  }

  /** Who holds `key` now, oldest first (for tests and the lab's side panel). */
  holders(key: string): string[] {
    return this.lock(key)?.holders.map((h) => h.owner) ?? [];
  }

  /** Who waits for `key` now, in queue order. */
  waiting(key: string): string[] {
    return this.lock(key)?.waiters.map((w) => w.owner) ?? [];
  }
}

/** The node name of the per-machine table `store` keeps on `machine`. */
export function localNodeName(store: string, machine: string): string {
  return `${store}@${machine}`;
}

/** One lock table per machine of the scenario, by node name. */
export function localNodes(world: World, store: string, scenario: Scenario, rules: LocalLockRules): Map<string, LocalLockNode> {
  const nodes = new Map<string, LocalLockNode>();
  for (const m of scenario.machines) {
    const name = localNodeName(store, m.name);
    nodes.set(name, new LocalLockNode(world, name, world.machine(m.name), rules));
  }
  return nodes;
}

/** The node a client reaches: the kernel of its own machine, over loopback. */
export function nodeOf(nodes: ReadonlyMap<string, LocalLockNode>, store: string, client: ClientSpec): LocalLockNode {
  const node = nodes.get(localNodeName(store, client.machine));
  if (node === undefined) throw new Error(`no ${store} table on machine ${client.machine}: normalize the scenario first`);
  return node;
}
