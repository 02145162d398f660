import { KIND_NAMES, kindSpec } from '../../trace/kinds.js';
import type { TraceEvent } from '../../trace/types.js';
import type { Holding } from '../intervals.js';
import { addShare, withFree, type ClientAvailability, type LockOutShare, type Span } from '../verdict.js';
import { removeAt } from '../remove-at.js';

/** Events that begin a wait for the lock, when the client is not already waiting. */
const WAIT_STARTS = ['acquire.request', 'exists.request'];
/** Answers that keep a client out: from then on, time the lock is free is time lost. */
const KEPT_OUT = ['acquire.denied', 'acquire.timeout', 'acquire.error', 'quorum.missed'];
/** Events that end a wait: the lock is granted, given up, thrown out of acquire(), or the process ends (and every exception). */
const WAIT_ENDS = ['acquire.ok', 'acquire.giveup', 'process.crash', 'client.done'];
/**
 * What a client records while a work step goes on: the refreshes it makes
 * while working (a quorum store's rounds included), and what happens to its
 * process meanwhile. Any other event of its own is the next
 * step, which ends the work.
 */
const DURING_WORK = ['refresh.request', 'refresh.ok', 'quorum.missed', 'process.pause', 'process.resume', 'session.lost'];

/** What a kind of event means here, as bits: one look-up per event instead of one per question. */
const CLIENT_EVENT = 1;
const WAIT_START = 2;
const KEEPS_OUT = 4;
const WAIT_END = 8;
const WHILE_WORKING = 16;
/** The roles of a poll: a request that may begin a wait, and an answer that keeps the client out (see `push`). */
const ASKS_AGAIN = CLIENT_EVENT | WAIT_START;
const REFUSED_AGAIN = CLIENT_EVENT | KEEPS_OUT;

const ROLES: ReadonlyMap<string, number> = new Map(
  KIND_NAMES.filter((k) => kindSpec(k)?.actor === 'client').map((k) => [
    k,
    CLIENT_EVENT |
      (WAIT_STARTS.includes(k) ? WAIT_START : 0) |
      (KEPT_OUT.includes(k) ? KEEPS_OUT : 0) |
      (WAIT_ENDS.includes(k) || k.startsWith('exception.') ? WAIT_END : 0) |
      (DURING_WORK.includes(k) ? WHILE_WORKING : 0),
  ]),
);

/** What a kind of event means to the availability judgement, as ROLES' bits (0 for none). */
export function roleOf(kind: string): number {
  return ROLES.get(kind) ?? 0;
}

type LockOutSpan = ClientAvailability['lockOut'][number];

/** An open holding as the waiters of one stretch are judged against it (see `openNow`). */
interface OpenHolding {
  holding: Holding;
  inUse: boolean;
  holderGone: boolean;
}

/**
 * What the judgement knows of one owner token: whether a client event named
 * it yet (the first sighting may refile a holding under the client's key);
 * how many open holdings it has ("does a store hold it"); and how many
 * clients believe they hold it plus how many waits are still hearing about
 * it ("is it in use"), so that each is one look-up rather than a scan of
 * every client for every stretch of time.
 */
interface OwnerUse {
  seen: boolean;
  open: number;
  uses: number;
  /** Set when the record is dropped from `owners`: one kept elsewhere (a client's work) is looked up again. */
  dropped: boolean;
}

/** A work step going on: its owner token, the event that began it, and the owner's record once looked up (see `held`). */
interface Work {
  readonly owner: string;
  readonly seq: number;
  use: OwnerUse | undefined;
}

/** The end of the latest stretch of time judged under one state of the locks: every run of lock-out begun under it ends there. */
interface Epoch {
  toUs: number;
  seq: number;
}

/**
 * The waiters on one key whose lists of lock-out spans are full, judged as
 * one: a bounded judgement of a contended lock would otherwise judge each of
 * its waiters at every grant and every release, though only their totals and
 * counts still change. A member holds nothing on the key (one that does is
 * judged on its own), so every member stands the same; the pool keeps what
 * its members accrue together, and each member takes its difference since it
 * joined when it leaves. Only stretches when the key is in use or free are
 * judged so: one held by a process that no longer uses it sends the members
 * back to be judged one by one (it is rare, and each member's shares by holder
 * must keep the order they occurred in).
 */
interface Pool {
  readonly key: string;
  readonly members: Set<ClientState>;
  /** Lock-out the members accrued together, all of it while the key was free, and how many spans it made. */
  freeUs: number;
  spans: number;
  /** The end of the latest span; `runEpoch` while it grows with the epoch (see `ClientState.runEpoch`). */
  lastToUs: number;
  runEpoch: Epoch | undefined;
}

/** What the judgement keeps of one client. */
export interface ClientState {
  readonly name: string;
  readonly result: ClientAvailability;
  readonly key: string;
  /**
   * The wait in progress; `keptOut` once the store refused it or queued it
   * (until then the client is merely asking); `use`, the record of its owner
   * token, which stays in `owners` while the wait counts as a use of it.
   */
  wait: { fromUs: number; seq: number; keptOut: boolean; owner: string | undefined; use: OwnerUse | undefined; waitedFromUs: number } | undefined;
  work: Work | undefined;
  paused: boolean;
  /** The lock-out span growing while nothing it depends on changes: its end is its epoch's, written into it when the run stops. */
  runSpan: LockOutSpan | undefined;
  runEpoch: Epoch | undefined;
  /** The length of every lock-out span so far, kept as they grow: a run with a million spans is not summed again at its end. */
  lockOutUs: number;
  /** The same by why and holder (see `ClientAvailability.lockOutByWhy`): while the key was free, and the rest, which is rare, by holder. */
  lockOutFreeUs: number;
  lockOutHeld: Map<string, LockOutShare> | undefined;
  /** The latest lock-out span, listed or not: the next stretch may extend it. */
  lastLockOut: LockOutSpan | undefined;
  /** Whether `lastLockOut` is in the client's list (else it is this state's alone, and may be reused). */
  lastLockOutListed: boolean;
  /** The latest span of work without the lock, listed or not, and the length of them all. */
  lastUnlocked: Span | undefined;
  workWithoutLockUs: number;
  /**
   * The owner token the client believes it holds, if any, and whether it is
   * in `working`: kept on the client's own state, as every client event asks
   * both, so that neither costs a look-up in a map.
   */
  believed: string | undefined;
  inWorking: boolean;
  /** The record of `believed`, and the owner token the client's last event named with its record (see `namedUse`). */
  believedUse: OwnerUse | undefined;
  named: string | undefined;
  namedUse: OwnerUse | undefined;
  /** The pool this waiter is judged in, and the pool's totals when it joined; it is then not in `waiting`. */
  pool: Pool | undefined;
  joinedFreeUs: number;
  joinedSpans: number;
}

/**
 * Availability, from the trace alone, as time goes by: for each client, how
 * long it waited for a lock that nobody was using (the key free in truth,
 * or held only by processes that are gone or no longer believe they hold
 * it: an orphaned lock), and how long it worked
 * while no store held its lock. Both change only at events, so each stretch
 * between two events is judged by the state after the first.
 */
export class Availability {
  private readonly clients = new Map<string, ClientState>();
  /**
   * The clients working, in the order they began: their time is accounted
   * stretch by stretch. A list, not a set: it is walked at every event while
   * anyone works, and a loop over a set makes an iterator each time.
   */
  private readonly working: ClientState[] = [];
  /**
   * The clients kept out of the lock. Whether each is locked out depends only
   * on the open holdings, who uses which owner token and who is gone, so it
   * is judged again only when one of those changes (`version`) or the
   * client's own wait does (`dirty`); between, every run of lock-out simply
   * grows with the epoch. A contended lock with many waiters then costs a few
   * operations per event, not one per waiter.
   */
  private readonly waiting = new Set<ClientState>();
  private readonly dirty = new Set<ClientState>();
  /** The pool of each key (see `Pool`), made when a waiter first joins one. */
  private readonly pools = new Map<string, Pool>();
  /** The waiters judged one by one whose lists are full: they join their key's pool after this stretch is judged. */
  private readonly joining: ClientState[] = [];
  /** How many waiters each key has. */
  private readonly waitersByKey = new Map<string, number>();
  /** How each key with waiters stood when they were last all judged (see `sameStanding`); undefined, unrecorded. */
  private readonly standing = new Map<string, string | undefined>();
  private version = 0;
  private judged = -1;
  private epoch: Epoch = { toUs: 0, seq: 0 };
  /** Per owner token, whether a client event named it yet, its open holdings, and its uses (see `OwnerUse`). */
  private readonly owners = new Map<string, OwnerUse>();
  /** The sum of every stretch of time so far: a wait's length is the difference between its end and its start. */
  private clockUs = 0;
  /**
   * The open holdings, in the order they opened. A list, not a set: there
   * are few at a time, and a set emptied and filled again, as this one is
   * at every grant and release, is given a new table each time.
   */
  private readonly open: Holding[] = [];
  /**
   * The record of each open holding's owner token, in the same order: the
   * one in `owners` for as long as the holding is open, since a record with
   * an open holding is never dropped, so it is asked without a look-up.
   */
  private readonly openUses: OwnerUse[] = [];
  /** What `openNow` returns, kept to be written over. */
  private readonly openList: OpenHolding[] = [];
  private readonly gone = new Set<string>();
  private lastUs = 0;
  private lastSeq = 0;

  /**
   * `spansKept`: how many spans of each kind a client's lists keep; the rest
   * are counted (`lockOutOmitted`, `workWithoutLockOmitted`).
   * `freeSpansKept`: how long its list of lock-out may be and still take a
   * span of a free key. Every waiter on a contended lock gets one such span
   * per grant, so a trace judged whole lists only the first of them, and
   * every span with a holder (those are the findings); a bounded judgement
   * cuts both alike.
   */
  constructor(
    private readonly spansKept: number = Infinity,
    private readonly freeSpansKept: number = spansKept,
  ) {}

  /** The interval derivation forgot an owner token: its first sighting, should it come again, counts as new. */
  forgot(owner: string): void {
    const r = this.owners.get(owner);
    if (r === undefined) return;
    r.seen = false;
    this.dropIfIdle(owner, r);
  }

  holdingStarted(h: Holding): void {
    if (this.open.includes(h)) return;
    const r = this.ownerUse(h.owner);
    this.open.push(h);
    this.openUses.push(r);
    r.open++;
    this.version++;
  }

  holdingEnded(h: Holding): void {
    const i = this.open.indexOf(h);
    if (i === -1) return;
    const r = this.openUses[i]!;
    removeAt(this.open, i);
    removeAt(this.openUses, i);
    r.open--;
    this.dropIfIdle(h.owner, r);
    this.version++;
  }

  /** The record of `owner`, made when first needed. */
  private ownerUse(owner: string): OwnerUse {
    let r = this.owners.get(owner);
    if (r === undefined) {
      r = { seen: false, open: 0, uses: 0, dropped: false };
      this.owners.set(owner, r);
    }
    return r;
  }

  /** Forgets a record that says nothing any more, so that a judgement in bounded memory keeps none of them. */
  private dropIfIdle(owner: string, r: OwnerUse): void {
    if (!r.seen && r.open === 0 && r.uses === 0) {
      r.dropped = true;
      this.owners.delete(owner);
    }
  }

  /** Whether a store holds the lock of the work's owner now: asked at every event while a client works, so the record is kept on the work. */
  private held(work: Work): boolean {
    let r = work.use;
    if (r === undefined || r.dropped) {
      r = this.owners.get(work.owner);
      work.use = r;
    }
    return r !== undefined && r.open !== 0;
  }

  /** Called before each event is applied: accounts for the time since the last one. */
  advance(e: TraceEvent): void {
    const fromUs = this.lastUs;
    if (e.timeUs > fromUs) {
      const dtUs = e.timeUs - fromUs;
      this.clockUs += dtUs;
      // Each loop over a set makes an iterator, and most stretches have nothing dirty: the size is asked first.
      for (let i = 0; i < this.working.length; i++) {
        const c = this.working[i]!;
        const work = c.work!;
        if (c.paused) continue;
        if (!this.held(work)) this.workedUnlocked(c, fromUs, e.timeUs, [work.seq, e.seq]);
        c.result.workedUs += dtUs;
      }
      if (this.judged !== this.version && !this.sameStanding()) {
        // The locks changed since the last stretch: every waiter is judged afresh, in a new epoch.
        this.judged = this.version;
        this.epoch = { toUs: e.timeUs, seq: e.seq };
        const open = this.openNow();
        if (this.pools.size > 0) this.unpoolHolders(open);
        for (const c of this.waiting) this.judge(c, fromUs, e.timeUs, e.seq, open);
        if (this.pools.size > 0) for (const pool of this.pools.values()) if (pool.members.size > 0) this.judgePool(pool, fromUs, e.timeUs, e.seq, open);
        if (this.joining.length > 0) this.join();
        this.noteStanding();
      } else {
        this.judged = this.version;
        this.epoch.toUs = e.timeUs;
        this.epoch.seq = e.seq;
        if (this.dirty.size > 0) {
          const open = this.openNow();
          for (const c of this.dirty) if (this.waiting.has(c)) this.judge(c, fromUs, e.timeUs, e.seq, open);
          if (this.joining.length > 0) this.join();
        }
      }
      // Clearing a set gives it a new table: only one with something in it is cleared.
      if (this.dirty.size > 0) this.dirty.clear();
    }
    this.lastUs = e.timeUs;
    this.lastSeq = e.seq;
  }

  /**
   * Applies a client's event (after the interval derivation has seen it);
   * `role` is its kind's (`roleOf`), when the caller has it. `known`: the
   * actor's state as this returned it last time, if the caller keeps it
   * (the checker does, so that an event costs one look-up of its actor for
   * every judgement); returns the actor's state, if it has one yet.
   */
  push(e: TraceEvent, role: number = roleOf(e.kind), known?: ClientState): ClientState | undefined {
    if (e.kind === 'lock.queued' && e.peer !== undefined) {
      const peer = this.clients.get(e.peer);
      if (peer?.wait !== undefined) this.keepOut(peer);
      return known;
    }
    if ((role & CLIENT_EVENT) === 0 || e.believes === undefined) return known;
    const c = known ?? this.state(e);
    const w = c.wait;
    // A waiter asking again, or refused again, as it already was: nothing changes. This is most events of a contended lock.
    if (
      w !== undefined &&
      w.use !== undefined &&
      w.use.seen &&
      w.owner === e.owner &&
      c.believed === undefined &&
      c.work === undefined &&
      !e.believes.holds &&
      (role === ASKS_AGAIN || (role === REFUSED_AGAIN && w.keptOut))
    )
      return c;
    if (e.owner !== undefined) {
      const r = this.namedUse(c, e.owner);
      if (!r.seen) {
        // The interval derivation may just have refiled this owner's holdings under the client's key.
        r.seen = true;
        this.version++;
      }
    }
    if (e.believes.holds && e.believes.owner !== undefined) this.believe(c, e.believes.owner);
    // A release in flight still counts as using the lock: the holder is giving it back.
    else if (!(e.kind === 'release.request' && e.owner !== undefined && c.believed === e.owner)) this.believe(c, undefined);
    if (e.kind === 'process.pause') c.paused = true;
    else if (e.kind === 'process.resume') c.paused = false;
    if (c.work !== undefined && (role & WHILE_WORKING) === 0) c.work = undefined;
    if (e.kind === 'work.start' && e.owner !== undefined) c.work = { owner: e.owner, seq: e.seq, use: undefined };
    if (c.wait === undefined && (role & WAIT_START) !== 0 && !e.believes.holds) this.setWait(c, e);
    else if (c.wait !== undefined && ((role & KEEPS_OUT) !== 0 || (e.kind === 'exists.reply' && e.data?.free === false))) this.keepOut(c);
    if (c.wait !== undefined && (role & WAIT_END) !== 0) this.setWait(c, undefined);
    if (e.kind === 'process.crash' || e.kind === 'client.done') {
      if (!this.gone.has(e.actor)) this.version++;
      this.gone.add(e.actor);
      this.believe(c, undefined);
      c.work = undefined;
    }
    if (c.work !== undefined) {
      if (!c.inWorking) this.working.push(c);
      c.inWorking = true;
    } else if (c.inWorking) {
      removeAt(this.working, this.working.indexOf(c));
      c.inWorking = false;
    }
    return c;
  }

  /**
   * Whether every waiter stands as it did when last judged, though something
   * changed: for each key with waiters, what the open holdings on it say
   * (in use, free, orphaned, holder gone, and by whom) is what it was, and no
   * waiter holds the key itself (then it is judged on its own). A grant's
   * belief arriving, a wait starting elsewhere or a new owner token seen
   * leave most waiters where they were: this costs a look at each key, not at
   * each waiter.
   */
  private sameStanding(): boolean {
    if (this.waitersByKey.size === 0) return true;
    for (const h of this.open) {
      if (!this.waitersByKey.has(h.key)) continue;
      const c = this.clients.get(h.client);
      if (c !== undefined && c.key === h.key && this.isWaiting(c)) return false;
    }
    for (const key of this.waitersByKey.keys()) {
      const was = this.standing.get(key);
      if (was === undefined || was !== this.standingOf(key)) return false;
    }
    return true;
  }

  /**
   * Records how each key with waiters stands, after every waiter was judged;
   * a key with a waiter that holds it is left unrecorded. Written over, not
   * cleared and filled: this runs at every change of the locks, and a map
   * cleared, or emptied, is given a new table.
   */
  private noteStanding(): void {
    for (const key of this.waitersByKey.keys()) this.standing.set(key, this.standingOf(key));
    // Any more than those are keys whose waiters have all gone.
    if (this.standing.size > this.waitersByKey.size) for (const key of this.standing.keys()) if (!this.waitersByKey.has(key)) this.standing.delete(key);
    for (const h of this.open) {
      const c = this.clients.get(h.client);
      if (c !== undefined && c.key === h.key && this.isWaiting(c)) this.standing.set(h.key, undefined);
    }
  }

  /** What the open holdings on `key` say to a waiter that holds none of them: the same rules as `waited`, in one word. */
  private standingOf(key: string): string {
    let holder: Holding | undefined;
    let orphaned = false;
    for (let i = 0; i < this.open.length; i++) {
      const h = this.open[i]!;
      if (h.key !== key) continue;
      if (this.openUses[i]!.uses !== 0) return 'in use';
      if (!this.gone.has(h.client)) orphaned = true;
      holder = h;
    }
    return holder === undefined ? 'free' : `${orphaned ? 'orphaned' : 'holder-gone'}\u0000${holder.client}`;
  }

  /** The store refused or queued the client's wait: from the next stretch on, time the lock is free is lost. */
  private keepOut(c: ClientState): void {
    if (c.wait!.keptOut) return;
    c.wait!.keptOut = true;
    this.waiting.add(c);
    count(this.waitersByKey, c.key, 1);
    this.dirty.add(c);
  }

  /** Judges whether `c`, kept out, is locked out over [fromUs, toUs), ending its run of lock-out first. */
  private judge(c: ClientState, fromUs: number, toUs: number, endSeq: number, open: readonly OpenHolding[]): void {
    this.endRun(c);
    if (!this.waited(c.name, c, fromUs, toUs, endSeq, open)) {
      // In use now, so not in a run of lock-out: with a full list, it can be judged with its key's other such waiters from here on.
      if (c.result.lockOut.length >= this.freeSpansKept) this.joining.push(c);
      return;
    }
    c.runSpan = c.lastLockOut!;
    c.runEpoch = this.epoch;
  }

  /** Whether `c` is kept out of its lock now, judged on its own or in its key's pool. */
  private isWaiting(c: ClientState): boolean {
    return c.pool !== undefined || this.waiting.has(c);
  }

  /** Judges `pool`'s members over [fromUs, toUs) as `waited` judges each: lock-out while no holding on the key is in use. */
  private judgePool(pool: Pool, fromUs: number, toUs: number, endSeq: number, open: readonly OpenHolding[]): void {
    this.flushPool(pool);
    pool.runEpoch = undefined;
    let held = false;
    for (const o of open) {
      if (o.holding.key !== pool.key) continue;
      if (o.inUse) return;
      held = true;
    }
    if (held) {
      // Orphaned, or its holder gone: each member is judged on its own, with the holder named, until the key is in use again.
      for (const c of pool.members) {
        this.leave(c);
        this.waiting.add(c);
        this.judge(c, fromUs, toUs, endSeq, open);
      }
      return;
    }
    // Free: one more span for every member, unless it goes on from the last one.
    if (pool.spans === 0 || pool.lastToUs !== fromUs) pool.spans++;
    pool.freeUs += toUs - fromUs;
    pool.lastToUs = toUs;
    pool.runEpoch = this.epoch;
  }

  /** Adds the growth of `pool`'s run of lock-out so far to its totals: the run goes on. */
  private flushPool(pool: Pool): void {
    const epoch = pool.runEpoch;
    if (epoch === undefined) return;
    pool.freeUs += epoch.toUs - pool.lastToUs;
    pool.lastToUs = epoch.toUs;
  }

  /** Members holding something on their own key stand apart from the others: they are judged on their own again. */
  private unpoolHolders(open: readonly OpenHolding[]): void {
    for (const o of open) {
      const c = this.clients.get(o.holding.client);
      if (c?.pool === undefined || c.key !== o.holding.key) continue;
      this.leave(c);
      this.waiting.add(c);
    }
  }

  /** Moves the waiters that asked to (see `judge`) into their keys' pools, taking each pool's totals as they stand. */
  private join(): void {
    for (const c of this.joining) {
      if (c.pool !== undefined || c.runSpan !== undefined || !this.waiting.has(c)) continue;
      let pool = this.pools.get(c.key);
      if (pool === undefined) {
        pool = { key: c.key, members: new Set(), freeUs: 0, spans: 0, lastToUs: 0, runEpoch: undefined };
        this.pools.set(c.key, pool);
      }
      this.flushPool(pool);
      this.waiting.delete(c);
      pool.members.add(c);
      c.pool = pool;
      c.joinedFreeUs = pool.freeUs;
      c.joinedSpans = pool.spans;
    }
    this.joining.length = 0;
  }

  /** Takes `c` out of its pool with what the pool accrued since it joined, as if it had been judged on its own throughout. */
  private leave(c: ClientState): void {
    const pool = c.pool!;
    this.flushPool(pool);
    const spans = pool.spans - c.joinedSpans;
    if (spans > 0) {
      const us = pool.freeUs - c.joinedFreeUs;
      c.lockOutUs += us;
      c.lockOutFreeUs += us;
      c.result.lockOutOmitted = (c.result.lockOutOmitted ?? 0) + spans;
      // Its latest span is the pool's: the next stretch may go on from it. A full list's spans are not listed, so this one is its own.
      let last = c.lastLockOut;
      if (last === undefined || c.lastLockOutListed) {
        last = { fromUs: pool.lastToUs, toUs: pool.lastToUs, seqs: [c.wait!.seq, this.lastSeq, this.lastSeq], why: 'free', holder: null };
        c.lastLockOut = last;
        c.lastLockOutListed = false;
      }
      last.toUs = pool.lastToUs;
      last.why = 'free';
      last.holder = null;
    }
    pool.members.delete(c);
    c.pool = undefined;
    // An empty pool is not judged, so its run would go on growing with an epoch nobody is in.
    if (pool.members.size === 0) pool.runEpoch = undefined;
  }

  /** Writes the end of `c`'s run of lock-out into its span: the end of the last stretch of its epoch. */
  private endRun(c: ClientState): void {
    const span = c.runSpan;
    if (span === undefined) return;
    const epoch = c.runEpoch!;
    addLockOut(c, span.why, span.holder, epoch.toUs - span.toUs);
    span.toUs = epoch.toUs;
    span.seqs[span.seqs.length - 1] = epoch.seq;
    c.runSpan = undefined;
    c.runEpoch = undefined;
  }

  /** Sets (or, with undefined, clears) the owner token a client believes it holds, keeping the use counts. */
  private believe(c: ClientState, owner: string | undefined): void {
    const was = c.believed;
    if (was === owner) return;
    if (was !== undefined) this.use(was, -1, c.believedUse);
    c.believed = owner;
    c.believedUse = owner === undefined ? undefined : this.use(owner, 1, owner === c.named ? c.namedUse : undefined);
  }

  /**
   * The record of `owner`, which `c`'s event names: the client keeps the one
   * its last event named, as its polls and the steps of its acquisition name
   * one owner again and again, and the records of all owners are many.
   */
  private namedUse(c: ClientState, owner: string): OwnerUse {
    let r = c.namedUse;
    if (c.named !== owner || r === undefined || r.dropped) {
      r = this.ownerUse(owner);
      c.named = owner;
      c.namedUse = r;
    }
    return r;
  }

  /** Starts (at `start`, the event that asks for the lock) or, with undefined, ends a client's wait, keeping the use counts and the time it waited. */
  private setWait(c: ClientState, start: TraceEvent | undefined): void {
    const was = c.wait;
    if (was !== undefined) {
      if (was.owner !== undefined) this.use(was.owner, -1, was.use);
      c.result.waitedUs += this.clockUs - was.waitedFromUs;
      if (c.pool !== undefined) {
        this.leave(c);
        count(this.waitersByKey, c.key, -1);
      } else {
        this.endRun(c);
        if (this.waiting.delete(c)) count(this.waitersByKey, c.key, -1);
      }
      this.dirty.delete(c);
    }
    if (start === undefined) {
      c.wait = undefined;
      return;
    }
    c.wait = { fromUs: start.timeUs, seq: start.seq, keptOut: false, owner: start.owner, use: undefined, waitedFromUs: this.clockUs };
    if (start.owner !== undefined) c.wait.use = this.use(start.owner, 1, start.owner === c.named ? c.namedUse : undefined);
  }

  /**
   * Counts one more (or one fewer) use of `owner`, whose record it returns;
   * whether it is in use at all is what lock-out depends on. `known`: the
   * record of `owner` as the caller last had it.
   */
  private use(owner: string, by: number, known: OwnerUse | undefined): OwnerUse {
    const r = known !== undefined && !known.dropped ? known : this.ownerUse(owner);
    const had = r.uses !== 0;
    r.uses += by;
    if ((r.uses !== 0) !== had) this.version++;
    this.dropIfIdle(owner, r);
    return r;
  }

  finish(): ClientAvailability[] {
    for (const pool of this.pools.values()) for (const c of pool.members) this.leave(c);
    for (const c of this.clients.values()) {
      this.endRun(c);
      if (c.wait !== undefined) c.result.waitedUs += this.clockUs - c.wait.waitedFromUs;
    }
    return [...this.clients.values()].map((c) => {
      const r = c.result;
      r.lockOutUs = c.lockOutUs;
      if (r.lockOutOmitted !== undefined) r.lockOutByWhy = withFree(c.lockOutFreeUs, c.lockOutHeld);
      r.workWithoutLockUs = c.workWithoutLockUs;
      return r;
    });
  }

  private state(e: TraceEvent): ClientState {
    let c = this.clients.get(e.actor);
    if (c === undefined) {
      c = {
        name: e.actor,
        result: { client: e.actor, waitedUs: 0, lockOutUs: 0, lockOut: [], workedUs: 0, workWithoutLockUs: 0, workWithoutLock: [] },
        key: e.key ?? '',
        wait: undefined,
        work: undefined,
        paused: false,
        runSpan: undefined,
        runEpoch: undefined,
        lockOutUs: 0,
        lockOutFreeUs: 0,
        lockOutHeld: undefined,
        lastLockOut: undefined,
        lastLockOutListed: false,
        lastUnlocked: undefined,
        workWithoutLockUs: 0,
        believed: undefined,
        inWorking: false,
        believedUse: undefined,
        named: undefined,
        namedUse: undefined,
        pool: undefined,
        joinedFreeUs: 0,
        joinedSpans: 0,
      };
      this.clients.set(e.actor, c);
    }
    return c;
  }

  /**
   * The open holdings in the order they opened, each with whether it is in
   * use and whether its holder is gone: judging waiters changes neither, so
   * a stretch that judges every waiter asks once per holding, not once per
   * holding per waiter.
   */
  private openNow(): OpenHolding[] {
    // The list is this judgement's own, written over at each stretch: nothing keeps it past the stretch it was made for.
    const out = this.openList;
    let n = 0;
    for (let i = 0; i < this.open.length; i++) {
      const h = this.open[i]!;
      const inUse = this.openUses[i]!.uses !== 0;
      const holderGone = this.gone.has(h.client);
      const o = out[n];
      if (o === undefined) out.push({ holding: h, inUse, holderGone });
      else {
        o.holding = h;
        o.inUse = inUse;
        o.holderGone = holderGone;
      }
      n++;
    }
    while (out.length > n) out.pop();
    return out;
  }

  /** Accounts [fromUs, toUs) of `c`'s wait as lock-out unless the lock was in use; returns whether it was lock-out. */
  private waited(name: string, c: ClientState, fromUs: number, toUs: number, endSeq: number, open: readonly OpenHolding[]): boolean {
    let holder: Holding | undefined;
    let orphaned = false;
    for (const o of open) {
      const h = o.holding;
      if (h.key !== c.key || h.client === name) continue;
      // Held by someone who can still use it: that is waiting, not lock-out.
      if (o.inUse) return false;
      if (!o.holderGone) orphaned = true;
      holder = h;
    }
    const why = holder === undefined ? 'free' : orphaned ? 'orphaned' : 'holder-gone';
    const last = c.lastLockOut;
    if (last !== undefined && last.toUs === fromUs && last.why === why && last.holder === (holder?.client ?? null)) {
      addLockOut(c, why, last.holder, toUs - last.toUs);
      last.toUs = toUs;
      last.seqs[last.seqs.length - 1] = endSeq;
      return true;
    }
    const holderName = holder?.client ?? null;
    addLockOut(c, why, holderName, toUs - fromUs);
    const listed = c.result.lockOut.length < (why === 'free' ? this.freeSpansKept : this.spansKept);
    if (!listed) {
      c.result.lockOutOmitted = (c.result.lockOutOmitted ?? 0) + 1;
      if (last !== undefined && !c.lastLockOutListed) {
        // Nothing but this state sees a span that is not listed: it is written over rather than made anew, so a long run judged in bounded memory does not allocate one per waiter per grant.
        last.fromUs = fromUs;
        last.toUs = toUs;
        last.seqs[0] = c.wait!.seq;
        last.seqs[1] = this.lastSeq;
        last.seqs[2] = endSeq;
        last.why = why;
        last.holder = holderName;
        return true;
      }
    }
    // The wait's first request, the event after which the key was free (or its holder gone), and the one that ended the stretch.
    const span: LockOutSpan = { fromUs, toUs, seqs: [c.wait!.seq, this.lastSeq, endSeq], why, holder: holderName };
    c.lastLockOut = span;
    c.lastLockOutListed = listed;
    if (listed) c.result.lockOut.push(span);
    return true;
  }

  /** Accounts [fromUs, toUs) of `c`'s work as done without its lock, joining it to the last such span when they touch. */
  private workedUnlocked(c: ClientState, fromUs: number, toUs: number, seqs: number[]): void {
    c.workWithoutLockUs += toUs - fromUs;
    const last = c.lastUnlocked;
    if (last !== undefined && last.toUs === fromUs && last.seqs[0] === seqs[0]) {
      last.toUs = toUs;
      last.seqs[last.seqs.length - 1] = seqs[seqs.length - 1]!;
      return;
    }
    const span: Span = { fromUs, toUs, seqs };
    c.lastUnlocked = span;
    if (c.result.workWithoutLock.length < this.spansKept) c.result.workWithoutLock.push(span);
    else c.result.workWithoutLockOmitted = (c.result.workWithoutLockOmitted ?? 0) + 1;
  }
}

/** Adds `us` of lock-out to `c`, for `why` and `holder`. */
function addLockOut(c: ClientState, why: LockOutShare['why'], holder: string | null, us: number): void {
  c.lockOutUs += us;
  if (why === 'free') c.lockOutFreeUs += us;
  else addShare((c.lockOutHeld ??= new Map()), why, holder, us);
}

/** Adds `by` to `key`'s count, dropping the key when it reaches zero (so `has` means "at least one"). */
function count(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n === 0) counts.delete(key);
  else counts.set(key, n);
}
