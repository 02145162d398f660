import type { SessionOp } from './session-driver.js';
import type { Timer } from '../kernel/kernel.js';
import { DEFER, type Caller } from '../world/endpoint.js';
import type { Machine } from '../world/machine.js';

import type { World } from '../world/world.js';
import type { LockOp, LockReply, StoreNode } from './types.js';

/*
 * ZooKeeper sessions and etcd leases work alike for locking: the client opens
 * a session (a lease) with a timeout, keeps it alive with heartbeats
 * (keep-alives), and the lock is a key that lives exactly as long as the
 * session. The server ends a session it has not heard from for its timeout
 * and deletes its keys; the client hears of it only the next time it gets
 * through. This file is that machinery, shared by both stores.
 */

export interface SessionNodeOptions {
  /**
   * true: every acquirer creates a key ordered by creation (EPHEMERAL|SEQUENTIAL
   * children, etcd's mutex keys), the oldest holds the lock and the next in
   * line is told when its predecessor goes. false: one plain key, and a
   * second acquirer is refused.
   */
  readonly queue: boolean;
  /** Whether the key's creation counter (zxid, revision) is handed out as the fencing token. */
  readonly fencing: boolean;
  /** The first value of the counter of writes (zxid, revision). */
  readonly counterStart: number;
  /** Sessions are expired in batches, at whole multiples of this (ZooKeeper's tick, etcd's 500 ms lessor loop). */
  readonly expiryStepUs: number;
  /** "session" or "lease": what the client holds, in messages. */
  readonly word: string;
  /** The event that ends a holding when the session runs out, and its reason. */
  readonly lossKind: 'lock.lost' | 'lock.expired';
  readonly lossReason: string;
}

interface Session {
  readonly id: string;
  readonly client: string;
  readonly timeoutUs: number;
  /** True time at which the server ends the session unless it hears from the client first. */
  deadlineUs: number;
  timer: Timer | undefined;
  readonly keys: LockKey[];
}

interface LockKey {
  readonly key: string;
  readonly owner: string;
  readonly session: Session;
  /** The write counter when the key was created: czxid, or etcd's create revision. */
  readonly created: number;
  held: boolean;
  waiter: { caller: Caller; timer: Timer | undefined; endIfDenied: boolean } | undefined;
}

/**
 * A lock server whose locks are keys bound to sessions. Session deadlines are
 * kept on the server's monotonic clock (ZooKeeper and etcd both measure
 * elapsed time, not wall time), so a wall-clock jump does not move them; the
 * clock's rate at the last touch is used.
 */
export class SessionLockNode implements StoreNode {
  readonly name: string;
  readonly machine: Machine;
  private readonly sessions = new Map<string, Session>();
  /** Keys per lock name, oldest first. */
  private readonly keys = new Map<string, LockKey[]>();
  private counter: number;

  constructor(
    private readonly world: World,
    name: string,
    machine: string,
    private readonly opts: SessionNodeOptions,
  ) {
    this.name = name;
    this.machine = world.machine(machine);
    this.counter = opts.counterStart - 1;
  }

  /** False while the server is down or its ensemble has no quorum: nothing is answered, and no session expires. */
  private serving = true;

  isUp(): boolean {
    return this.serving;
  }

  /**
   * A restart of the (only) server. ZooKeeper writes sessions and ephemeral
   * nodes to its transaction log before it answers, so they come back; the
   * server then gives every session a fresh timeout, and a client that
   * reconnects within it keeps its locks (observed on ZooKeeper 3.8, even
   * after a restart longer than the session timeout).
   */
  restart(downUs: number): void {
    if (!this.serving) return;
    this.world.record('store.down', this.name, this.machine, { reason: 'restart', data: { persistence: 'transaction log', keysLost: 0 } });
    this.suspend();
    this.world.kernel.after(downUs, () => {
      this.resume();
      this.world.record('store.up', this.name, this.machine, { data: { keysKept: this.heldCount() } });
    });
  }

  /** Stops serving: a restart, or an ensemble that lost its quorum. Session clocks stop with it. */
  suspend(): void {
    this.serving = false;
    for (const session of this.sessions.values()) {
      this.world.kernel.cancel(session.timer);
      session.timer = undefined;
    }
  }

  /** Serves again, and, as a newly elected leader does, gives every session its whole timeout afresh. */
  resume(): void {
    this.serving = true;
    for (const session of this.sessions.values()) this.touch(session);
  }

  /** How many keys are held now. */
  heldCount(): number {
    let n = 0;
    for (const line of this.keys.values()) for (const k of line) if (k.held) n++;
    return n;
  }

  /** The last write's counter value (zxid, revision). */
  get lastCounter(): number {
    return this.counter;
  }

  handle(request: LockOp, caller: Caller): LockReply | typeof DEFER {
    const req = request as unknown as SessionOp;
    if (req.op === 'exists') {
      // A get of the key's node: is it there, with our token? (ZooKeeper compares the node's data, whoever's session made it.)
      if (!req.fresh && !this.sessions.has(req.session)) return { ok: false, error: `${this.opts.word} expired` };
      const mine = this.find(req.key, req.owner);
      if (mine !== undefined && this.sessions.has(req.session)) this.touch(this.sessions.get(req.session)!);
      return { ok: mine !== undefined && mine.held };
    }
    let session = this.sessions.get(req.session);
    if (session === undefined) {
      if (!req.fresh) return { ok: false, error: `${this.opts.word} expired` };
      session = { id: req.session, client: caller.process, timeoutUs: req.timeoutUs, deadlineUs: 0, timer: undefined, keys: [] };
      this.sessions.set(session.id, session);
    }
    this.touch(session);
    switch (req.op) {
      case 'ping':
        return { ok: true };
      case 'close':
        this.close(session, caller.msg);
        return { ok: true };
      case 'acquire': {
        const reply = this.acquire(session, req, caller);
        if (reply !== DEFER && !reply.ok && req.endIfDenied === true) this.close(session, caller.msg);
        return reply;
      }
      case 'refresh': {
        const mine = this.find(req.key, req.owner);
        const reply: LockReply =
          mine !== undefined && mine.held && mine.session === session ? this.granted(mine) : { ok: false, holder: this.holderOf(req.key) };
        return reply;
      }
      case 'release': {
        const mine = this.find(req.key, req.owner);
        const reply: LockReply = mine === undefined || mine.session !== session ? { ok: false, holder: this.holderOf(req.key) } : { ok: true };
        if (mine !== undefined && mine.session === session) this.remove(mine, 'lock.released', 'released', caller.msg);
        if (req.end === true) this.close(session, caller.msg);
        return reply;
      }
      case 'get':
      case 'set':
      case 'del':
        // The store kinds say plainGetSet: false, so the scenario check never lets a client send these.
        return { ok: false, error: `no plain ${req.op} on this store` };
    }
  }

  private acquire(session: Session, req: SessionOp & { op: 'acquire' }, caller: Caller): LockReply | typeof DEFER {
    const mine = this.find(req.key, req.owner);
    if (mine !== undefined && mine.session === session) {
      if (mine.held) return this.granted(mine);
      // A retry while still in line: answer this request when the turn comes.
      if (mine.waiter !== undefined) this.world.kernel.cancel(mine.waiter.timer);
      mine.waiter = { caller, timer: this.waitTimer(mine, req.waitUs, caller), endIfDenied: req.endIfDenied === true };
      return DEFER;
    }
    const line = this.keys.get(req.key) ?? [];
    if (!this.opts.queue && line.length > 0) {
      // ZookeeperStore::save() first asks whether the node holds our token: a retry whose first reply was lost succeeds.
      if (line[0]!.owner === req.owner && line[0]!.held) return this.granted(line[0]!);
      return { ok: false, holder: this.holderOf(req.key) };
    }
    // Past 2^53 − 1 a number no longer counts one by one, and two keys would share a token: refuse instead.
    if (this.counter >= Number.MAX_SAFE_INTEGER) return { ok: false, error: 'the write counter is exhausted (2^53 − 1)' };
    const key: LockKey = { key: req.key, owner: req.owner, session, created: ++this.counter, held: false, waiter: undefined };
    line.push(key);
    this.keys.set(req.key, line);
    session.keys.push(key);
    if (line.length === 1) {
      this.grant(key, caller.msg);
      return this.granted(key);
    }
    if (req.waitUs === undefined) {
      // A try-lock: not first in line, so take the key away again and report who holds it.
      this.remove(key, '', '', undefined);
      return { ok: false, holder: this.holderOf(req.key) };
    }
    key.waiter = { caller, timer: this.waitTimer(key, req.waitUs, caller), endIfDenied: req.endIfDenied === true };
    const data = { position: line.length - 1, waitUs: req.waitUs ?? -1, holder: this.holderOf(req.key) ?? '', created: key.created };
    this.world.record('lock.queued', this.name, this.machine, { key: req.key, owner: req.owner, peer: caller.process, msg: caller.msg, data });
    return DEFER;
  }

  private waitTimer(key: LockKey, waitUs: number | null | undefined, caller: Caller): Timer | undefined {
    if (waitUs === null || waitUs === undefined) return undefined;
    // The library's wait runs out: it deletes its key and reports the lock as taken.
    return this.world.kernel.after(this.machine.clock.trueDuration(waitUs), () => {
      if (key.waiter?.caller !== caller) return;
      const endIfDenied = key.waiter.endIfDenied;
      key.waiter = undefined;
      this.remove(key, '', '', undefined);
      caller.respond({ ok: false, holder: this.holderOf(key.key) });
      if (endIfDenied && this.sessions.get(key.session.id) === key.session) this.close(key.session, caller.msg);
    });
  }

  /** The session-expiry fault: the server ends every session of `client` now, as if it had heard nothing for their timeout. */
  expireClient(client: string, reason: string): void {
    for (const s of [...this.sessions.values()]) if (s.client === client) this.expire(s, reason);
  }

  private touch(s: Session): void {
    if (!this.serving) return;
    const step = this.opts.expiryStepUs;
    const due = this.world.nowUs + this.machine.clock.trueDuration(s.timeoutUs);
    s.deadlineUs = Math.ceil(due / step) * step;
    s.timer ??= this.world.kernel.at(s.deadlineUs, () => this.checkDeadline(s));
  }

  private checkDeadline(s: Session): void {
    s.timer = undefined;
    if (this.sessions.get(s.id) !== s || !this.serving) return;
    if (this.world.nowUs >= s.deadlineUs) this.expire(s, `nothing heard from ${s.client} for ${s.timeoutUs / 1000} ms`);
    else s.timer = this.world.kernel.at(s.deadlineUs, () => this.checkDeadline(s));
  }

  private expire(s: Session, reason: string): void {
    this.sessions.delete(s.id);
    this.world.kernel.cancel(s.timer);
    const data = { what: this.opts.word, session: s.id, timeoutUs: s.timeoutUs, locks: s.keys.filter((k) => k.held).length };
    this.world.record('session.ended', this.name, this.machine, { peer: s.client, reason: `${this.opts.word} expired: ${reason}`, data });
    for (const k of [...s.keys]) {
      const waiter = k.waiter;
      k.waiter = undefined;
      if (waiter !== undefined) {
        this.world.kernel.cancel(waiter.timer);
        waiter.caller.respond({ ok: false, error: `${this.opts.word} expired` });
      }
      this.remove(k, this.opts.lossKind, this.opts.lossReason, undefined);
    }
  }

  /** The client closes its session: whatever it still holds is deleted with it. */
  private close(s: Session, msg: number): void {
    this.sessions.delete(s.id);
    this.world.kernel.cancel(s.timer);
    for (const k of [...s.keys]) {
      if (k.waiter !== undefined) this.world.kernel.cancel(k.waiter.timer);
      k.waiter = undefined;
      this.remove(k, 'lock.released', `${this.opts.word} closed`, msg);
    }
  }

  private find(key: string, owner: string): LockKey | undefined {
    return this.keys.get(key)?.find((k) => k.owner === owner);
  }

  private holderOf(key: string): string | null {
    const head = this.keys.get(key)?.[0];
    return head !== undefined && head.held ? head.owner : null;
  }

  private granted(k: LockKey): LockReply {
    return this.opts.fencing ? { ok: true, fence: k.created } : { ok: true };
  }

  private grant(k: LockKey, msg: number | undefined): void {
    k.held = true;
    this.world.record('lock.granted', this.name, this.machine, {
      key: k.key,
      owner: k.owner,
      fence: this.opts.fencing ? k.created : undefined,
      peer: k.session.client,
      msg,
      data: { session: k.session.id, created: k.created },
    });
  }

  /**
   * Deletes a key (a write: the counter moves on). A held key records `kind`;
   * when the head of the line goes, the next key in line is told — only that
   * one, as each waiter watches just its predecessor.
   */
  private remove(k: LockKey, kind: string, reason: string, msg: number | undefined): void {
    const line = this.keys.get(k.key)!;
    const at = line.indexOf(k);
    line.splice(at, 1);
    k.session.keys.splice(k.session.keys.indexOf(k), 1);
    this.counter++;
    if (k.held && kind !== '') {
      this.world.record(kind, this.name, this.machine, {
        key: k.key,
        owner: k.owner,
        fence: this.opts.fencing ? k.created : undefined,
        peer: k.session.client,
        msg,
        reason,
      });
    }
    k.held = false;
    if (line.length === 0) {
      this.keys.delete(k.key);
      return;
    }
    const next = line[0]!;
    if (at === 0 && !next.held) {
      this.grant(next, next.waiter?.caller.msg);
      const waiter = next.waiter;
      next.waiter = undefined;
      if (waiter !== undefined) {
        this.world.kernel.cancel(waiter.timer);
        waiter.caller.respond(this.granted(next));
      }
    }
  }
}

/**
 * One server of a ZooKeeper ensemble. The ensemble keeps one data tree (the
 * SessionLockNode, which records the locks); a server answers only while
 * it is up and a majority of the ensemble is, and a client whose server is
 * down reconnects to another, keeping its session.
 */
export class EnsembleServer implements StoreNode {
  readonly machine: Machine;
  private up = true;

  constructor(
    private readonly world: World,
    readonly name: string,
    machine: string,
    private readonly ensemble: Ensemble,
  ) {
    this.machine = world.machine(machine);
  }

  isUp(): boolean {
    return this.up && this.ensemble.tree.isUp();
  }

  handle(request: LockOp, caller: Caller): LockReply | typeof DEFER {
    return this.ensemble.tree.handle(request, caller);
  }

  get running(): boolean {
    return this.up;
  }

  restart(downUs: number): void {
    if (!this.up) return;
    this.up = false;
    this.world.record('store.down', this.name, this.machine, { reason: 'restart', data: { persistence: 'transaction log', keysLost: 0 } });
    this.ensemble.changed();
    this.world.kernel.after(downUs, () => {
      this.up = true;
      this.world.record('store.up', this.name, this.machine, { data: { keysKept: this.ensemble.tree.heldCount() } });
      this.ensemble.changed();
    });
  }
}

/** The servers of an ensemble and their shared tree: it serves while a majority of servers runs. */
export class Ensemble {
  readonly servers: EnsembleServer[] = [];

  constructor(readonly tree: SessionLockNode) {}

  changed(): void {
    const running = this.servers.filter((s) => s.running).length;
    const quorum = running > this.servers.length / 2;
    if (quorum && !this.tree.isUp()) this.tree.resume();
    else if (!quorum && this.tree.isUp()) this.tree.suspend();
  }
}
