import { KIND_NAMES, kindSpec, type HoldingEnd } from '../trace/kinds.js';
import type { TraceEvent } from '../trace/types.js';
import { CheckError } from './refuse.js';
import { removeAt } from './remove-at.js';

/*
 * The one derivation of intervals from a trace: holdings (what the store
 * says is true, with quorum), beliefs (what each client thinks) and the
 * windows in which two clients both believed they held the same key. The
 * checker, the lab's timeline and the CLI all read these, so none of them
 * can draw or judge a lock by rules of its own.
 */

/**
 * For each holding, the first exclusive holding of its key by another owner
 * granted after it: the newer holder a stale write of its owner is judged
 * against, set at that grant so that no list of every holding of a key need
 * be kept. It is kept on the holding itself, under a symbol: out of its
 * JSON, its keys and a structured clone, and gone with it, where a map
 * beside had an entry to add at each grant and to delete when the owner was
 * forgotten, each a look-up in a map as big as ten minutes of grants.
 */
const SUCCESSOR = Symbol('successor');
type Tracked = Holding & { [SUCCESSOR]: Holding | undefined };

/** A holding interval: from a store granting a key to an owner until that ends, per group of nodes. */
export interface Holding {
  /**
   * The key as the client names it (a store may see it under a prefix or as
   * a path). Until a client event names the owner's key, the store's.
   */
  key: string;
  /** A shared (read) lock: held beside others, never superseding them. */
  readonly shared: boolean;
  readonly owner: string;
  readonly client: string;
  /** The store node, or the group of nodes that hold the lock together (Redlock, Combined). */
  readonly group: string;
  /** The fencing token of the grant, where the store issues one. */
  readonly fence: number | undefined;
  readonly startUs: number;
  /** The grant that brought the group to its quorum. */
  readonly startSeq: number;
  endUs: number | undefined;
  endSeq: number | undefined;
  how: HoldingEnd | undefined;
  endReason: string | undefined;
}

/** One node's holding of a key, as the node's own lane shows it. */
export interface NodeHolding {
  readonly node: string;
  readonly key: string;
  readonly owner: string;
  readonly client: string;
  readonly fence: number | undefined;
  readonly startUs: number;
  readonly startSeq: number;
  endUs: number | undefined;
  endSeq: number | undefined;
  endKind: string | undefined;
}

/** A belief interval: from a client learning it holds the lock until it learns otherwise or dies. */
export interface BeliefInterval {
  readonly key: string;
  readonly shared: boolean;
  readonly client: string;
  readonly owner: string;
  readonly fence: number | undefined;
  readonly startUs: number;
  readonly startSeq: number;
  endUs: number | undefined;
  endSeq: number | undefined;
}

/** Two clients believed they held the same key over the same stretch of true time. */
export interface OwnershipWindow {
  readonly key: string;
  readonly fromUs: number;
  toUs: number;
  readonly clients: [string, string];
  readonly owners: [string, string];
  /** The events where each of the two beliefs began. */
  readonly seqs: [number, number];
}

/** Listeners the invariants hang on the derivation, called as intervals open and close. */
export interface IntervalEvents {
  holdingStarted?(h: Holding, e: TraceEvent): void;
  holdingEnded?(h: Holding, e: TraceEvent): void;
  /** A bounded derivation forgot an owner token (see `IntervalOptions.forgetAfterUs`). */
  forgot?(owner: string): void;
}

/** How much of the past a derivation keeps. */
export interface IntervalOptions {
  /**
   * Judge in bounded memory: keep no list of every interval (`holdings`,
   * `nodeHoldings` and `beliefs` stay empty) and forget an owner token once
   * nothing of it has been open for this long in trace time. Everything
   * still open, every finding, and every acquisition that ended less than
   * this long ago is kept, so a run of any length is judged exactly as long
   * as no event names an acquisition after it was forgotten; an event that
   * does is judged as a stranger's. Unset: everything is kept.
   */
  readonly forgetAfterUs?: number;
  /** How many windows of double ownership to list; the rest are counted in `windowsOmitted`. */
  readonly windowsListed?: number;
}

/**
 * What the derivation asks of a kind of event, in one shape for every kind:
 * the kinds' own specs come in many shapes, and a property read at every
 * event from objects of many shapes is a slow, generic look-up.
 */
export interface KindFacts {
  /** A client records it. */
  readonly client: boolean;
  readonly startsHolding: boolean;
  readonly endsHolding: HoldingEnd | undefined;
}

const FACTS: ReadonlyMap<string, KindFacts> = new Map(
  KIND_NAMES.map((k) => {
    const spec = kindSpec(k)!;
    return [k, { client: spec.actor === 'client', startsHolding: spec.startsHolding === true, endsHolding: spec.endsHolding }];
  }),
);

/** The facts of a kind of event, or undefined for a kind this version does not know. */
export function kindFacts(kind: string): KindFacts | undefined {
  return FACTS.get(kind);
}

/** The group a store node belongs to (`data.group`), or the node itself. */
function groupOf(e: TraceEvent): string {
  const g = e.data?.group;
  return typeof g === 'string' ? g : e.actor;
}

/** How many nodes of the group must hold for the lock to be held (`data.quorum`, default 1). */
function quorumOf(e: TraceEvent): number {
  const q = e.data?.quorum;
  return typeof q === 'number' ? q : 1;
}

/** Maps an owner token to its client: tokens are written `client:n`. */
export function clientOf(owner: string): string {
  const i = owner.lastIndexOf(':');
  return i === -1 ? owner : owner.slice(0, i);
}

function need(e: TraceEvent, field: 'owner' | 'key', why: string): string {
  const v = e[field];
  if (typeof v !== 'string') throw new CheckError(e.seq, field, `${e.kind} must name its ${field}: ${why}`);
  return v;
}

/**
 * Derives intervals from events fed in trace order, one at a time. Only the
 * past is ever needed, so the same code serves a trace on disk and a run
 * whose events are never kept.
 */
export class IntervalTracker {
  readonly holdings: Holding[] = [];
  readonly nodeHoldings: NodeHolding[] = [];
  readonly beliefs: BeliefInterval[] = [];
  readonly windows: OwnershipWindow[] = [];
  /** Holdings by key in start order: kept only for a trace that refiles holdings (see `learnKey`), and unbounded. */
  private readonly holdingsByKey = new Map<string, Holding[]>();
  lastUs = 0;

  /**
   * What is known of each owner token, in one record: an event names its
   * owner once, and one look-up then serves its key, its holdings, its
   * beliefs, its open node holdings and its groups.
   */
  private readonly owners = new Map<string, OwnerRecord>();
  /**
   * The open beliefs, in the order they began: each also on its client's
   * record. A list, not a map by client: there are few at a time, and a map
   * emptied and filled again, as this one is at every acquisition, is given
   * a new table each time.
   */
  private readonly openBeliefs: BeliefInterval[] = [];
  /** What the derivation keeps of each client (see `ActorRecord`). */
  private readonly actors = new Map<string, ActorRecord>();
  /** Windows whose end is not known yet, by the two beliefs they pair. */
  private readonly openWindows: Array<{ w: OwnershipWindow; a: BeliefInterval; b: BeliefInterval }> = [];
  /** The holdings still waiting for their successor (see `Tracked`), by key. */
  private readonly awaitingSuccessor = new Map<string, Holding[]>();
  /** Set once a holding was refiled under another key: successors were found under the old one, so the lists are read instead. */
  private refiled = false;
  private readonly forgetAfterUs: number | undefined;
  private readonly windowsListed: number;
  /** Windows found but not listed (see `IntervalOptions.windowsListed`). */
  windowsOmitted = 0;
  /**
   * Belief intervals begun: one per lock cycle of a client. Counted, not
   * listed, so that a bounded derivation gives the same number.
   */
  beliefsBegun = 0;
  /**
   * Of those, the beliefs that overlapped another client's on the same key
   * for some true time (a window of double ownership longer than an
   * instant). Both beliefs of a window count; one in several windows counts
   * once. Exact whether or not windows are listed; final once `finish` ran.
   */
  beliefsDoubleOwned = 0;
  /**
   * The beliefs counted in `beliefsDoubleOwned`, so that one in several
   * windows counts once. Weak: a bounded derivation keeps no list of
   * beliefs, and this must not become one.
   */
  private readonly counted = new WeakSet<BeliefInterval>();
  /**
   * The records of owner tokens with nothing open, in the order they closed,
   * and when: the ones to forget. Two lists rather than one of pairs, so that
   * closing makes no object; the record rather than the token, so that
   * forgetting needs no look-up.
   */
  private readonly closed: OwnerRecord[] = [];
  private readonly closedAtUs: number[] = [];
  private closedHead = 0;

  constructor(
    private readonly listeners: IntervalEvents = {},
    options: IntervalOptions = {},
  ) {
    this.forgetAfterUs = options.forgetAfterUs;
    this.windowsListed = options.windowsListed ?? Infinity;
  }

  /** The holdings of an owner token, in start order (none once a bounded derivation forgot it). */
  holdingsOf(owner: string): readonly Holding[] | undefined {
    return this.owners.get(owner)?.holdings;
  }

  /** The beliefs in an owner token's acquisition, in start order (none once a bounded derivation forgot it). */
  beliefsOf(owner: string): readonly BeliefInterval[] | undefined {
    return this.owners.get(owner)?.beliefs;
  }

  /** How many owner tokens the derivation remembers anything of: what a bounded one keeps bounded. */
  get ownersKept(): number {
    return this.owners.size;
  }

  /** The record of `owner`, made when first needed. */
  private owner(owner: string): OwnerRecord {
    let r = this.owners.get(owner);
    if (r === undefined) {
      r = { owner, key: undefined, holdings: undefined, beliefs: undefined, open: 0, nodes: undefined, groups: undefined, forgotten: false };
      this.owners.set(owner, r);
    }
    return r;
  }

  /**
   * The record of the client named `actor`, made when first needed. A caller
   * that keeps it (the checker, which looks each actor up once per event for
   * every judgement) hands it back to `push`.
   */
  actor(actor: string): ActorRecord {
    let a = this.actors.get(actor);
    if (a === undefined) {
      a = { belief: undefined, beliefRecord: undefined, owner: undefined, record: undefined };
      this.actors.set(actor, a);
    }
    return a;
  }

  /**
   * The record of `owner` as the client named `client` last named it, if it
   * did: a store's event names the client it answers, whose record is one
   * of few, while the records of all owners are many.
   */
  private known(client: string, owner: string): OwnerRecord | undefined {
    const a = this.actors.get(client);
    return a !== undefined && a.owner === owner && a.record !== undefined && !a.record.forgotten ? a.record : undefined;
  }

  /** The first exclusive holding of `mine`'s key by another owner, granted after `mine` and by `t`. */
  newerHolder(mine: Holding, t: number): Holding | undefined {
    if (this.refiled) {
      const sameKey = this.holdingsByKey.get(mine.key) ?? [];
      for (let i = positionOf(sameKey, mine) + 1; i < sameKey.length && sameKey[i]!.startUs <= t; i++) {
        const h = sameKey[i]!;
        if (h.owner !== mine.owner && !h.shared) return h;
      }
      return undefined;
    }
    const next = (mine as Tracked)[SUCCESSOR];
    return next !== undefined && next.startUs <= t ? next : undefined;
  }

  /** `facts`: the event kind's, and `actor`: the record of the event's actor (see `actor`), when the caller has looked them up already. */
  push(e: TraceEvent, facts: KindFacts | undefined = kindFacts(e.kind), actor?: ActorRecord): void {
    this.lastUs = e.timeUs;
    if (this.forgetAfterUs !== undefined) this.forgetBefore(e.timeUs - this.forgetAfterUs);
    // A kind this version does not know is a client's if it says what the client believes.
    const byClient = facts === undefined ? e.believes !== undefined : facts.client;
    const named = byClient && e.owner !== undefined && e.key !== undefined;
    if (named || e.believes !== undefined) {
      const a = actor ?? this.actor(e.actor);
      if (named) {
        // The owner its last event named, remembered on the client: a waiter's polls all name one, and the record of every owner is a big map.
        let r = a.owner === e.owner ? a.record : undefined;
        if (r === undefined || r.forgotten) {
          r = this.owner(e.owner!);
          a.owner = e.owner;
          a.record = r;
        }
        if (r.key === undefined) this.learnKey(r, e.owner!, e.key!);
      }
      if (e.believes !== undefined) this.belief(e, a);
    }
    if (facts === undefined) return;
    if (facts.startsHolding) this.granted(e);
    else if (facts.endsHolding !== undefined && e.owner !== undefined) this.ended(e, facts.endsHolding);
    else if (facts.endsHolding !== undefined) need(e, 'owner', 'the checker must know whose lock ended');
  }

  /** Closes the windows still open when the trace ends, at its last instant. */
  finish(): void {
    for (const o of this.openWindows) this.closeWindow(o, this.lastUs);
    this.openWindows.length = 0;
  }

  /**
   * The client's key for `owner`. A holding granted before any client event
   * named it (a hand-written or real trace) is filed under that key now, in
   * start order.
   */
  private learnKey(r: OwnerRecord, owner: string, key: string): void {
    r.key = key;
    for (const h of r.holdings ?? []) {
      if (h.key === key) continue;
      if (this.forgetAfterUs !== undefined)
        throw new CheckError(h.startSeq, 'key', `a bounded judgement needs every client to name its key before its grant; ${owner}'s was granted first`);
      this.refiled = true;
      const old = this.holdingsByKey.get(h.key)!;
      old.splice(old.indexOf(h), 1);
      h.key = key;
      const list = this.holdingsByKey.get(key) ?? [];
      this.holdingsByKey.set(key, list);
      let i = list.length;
      while (i > 0 && list[i - 1]!.startSeq > h.startSeq) i--;
      list.splice(i, 0, h);
    }
  }

  private belief(e: TraceEvent, a: ActorRecord): void {
    const b = e.believes!;
    if (b.holds && b.owner === undefined) throw new CheckError(e.seq, 'believes.owner', 'a client that believes it holds the lock must say as which owner');
    let current = a.belief;
    if (current !== undefined && (!b.holds || b.owner !== current.owner)) {
      current.endUs = e.timeUs;
      current.endSeq = e.seq;
      a.belief = undefined;
      removeAt(this.openBeliefs, this.openBeliefs.indexOf(current));
      this.closeWindows(current, e.timeUs);
      let r = a.beliefRecord;
      if (r === undefined || r.forgotten) r = this.owner(current.owner);
      a.beliefRecord = undefined;
      this.closeOf(r, e.timeUs);
      current = undefined;
    }
    if (b.holds && current === undefined) {
      const interval: BeliefInterval = {
        key: e.key ?? '',
        shared: b.shared === true,
        client: e.actor,
        owner: b.owner!,
        fence: b.fence,
        startUs: e.timeUs,
        startSeq: e.seq,
        endUs: undefined,
        endSeq: undefined,
      };
      // Every other belief still open on the same key overlaps this one from now on.
      for (const other of this.openBeliefs) {
        // One owner token is one acquisition, whatever number of processes carry it (a forked child shares its parent's).
        if (other.key !== interval.key || other.client === interval.client || other.owner === interval.owner || (other.shared && interval.shared)) continue;
        const w: OwnershipWindow = {
          key: other.key,
          fromUs: e.timeUs,
          toUs: e.timeUs,
          clients: [other.client, interval.client],
          owners: [other.owner, interval.owner],
          seqs: [other.startSeq, interval.startSeq],
        };
        if (this.windows.length < this.windowsListed) this.windows.push(w);
        else this.windowsOmitted++;
        this.openWindows.push({ w, a: other, b: interval });
      }
      if (this.forgetAfterUs === undefined) this.beliefs.push(interval);
      this.beliefsBegun++;
      a.belief = interval;
      this.openBeliefs.push(interval);
      // The owner its event named, most often: its record is on the client already.
      const r = a.owner === interval.owner && a.record !== undefined && !a.record.forgotten ? a.record : this.owner(interval.owner);
      a.beliefRecord = r;
      // An array made with its first element is made to hold one; one made empty grows to hold seventeen, and most hold one.
      if (r.beliefs === undefined) r.beliefs = [interval];
      else r.beliefs.push(interval);
      this.openOf(r);
    }
  }

  private closeWindows(ended: BeliefInterval, atUs: number): void {
    for (let i = this.openWindows.length - 1; i >= 0; i--) {
      const o = this.openWindows[i]!;
      if (o.a !== ended && o.b !== ended) continue;
      removeAt(this.openWindows, i);
      this.closeWindow(o, atUs);
    }
  }

  /**
   * A window ends when the first of its two beliefs does; one that closed
   * the instant it opened was no overlap at all. One that lasted makes both
   * its beliefs double-owned.
   */
  private closeWindow(o: { w: OwnershipWindow; a: BeliefInterval; b: BeliefInterval }, atUs: number): void {
    const w = o.w;
    w.toUs = atUs;
    if (atUs > w.fromUs) {
      this.doubleOwned(o.a);
      this.doubleOwned(o.b);
      return;
    }
    const i = this.windows.lastIndexOf(w);
    if (i !== -1) this.windows.splice(i, 1);
    else this.windowsOmitted--;
  }

  private doubleOwned(b: BeliefInterval): void {
    if (this.counted.has(b)) return;
    this.counted.add(b);
    this.beliefsDoubleOwned++;
  }

  private granted(e: TraceEvent): void {
    const owner = need(e, 'owner', 'the checker must know who was granted the lock');
    const storeKey = need(e, 'key', 'the checker must know which lock was granted');
    const client = e.peer ?? clientOf(owner);
    const r = this.known(client, owner) ?? this.owner(owner);
    if (r.nodes !== undefined && findNode(r.nodes, e.actor) !== -1) return;
    const nh: NodeHolding = {
      node: e.actor,
      key: storeKey,
      owner,
      client,
      fence: e.fence,
      startUs: e.timeUs,
      startSeq: e.seq,
      endUs: undefined,
      endSeq: undefined,
      endKind: undefined,
    };
    if (r.nodes === undefined) r.nodes = [nh];
    else r.nodes.push(nh);
    if (this.forgetAfterUs === undefined) this.nodeHoldings.push(nh);
    this.openOf(r);
    // Truth is kept per store node, then combined per group: the lock is held
    // while at least `quorum` nodes of its group hold it (1 of 1 for a single
    // node; a majority for Redlock; all stores for a unanimous Combined store).
    const group = groupOf(e);
    const g = groupIn(r, group);
    g.count++;
    if (g.count >= quorumOf(e) && g.holding === undefined) {
      const key = r.key ?? storeKey;
      const h: Tracked = {
        key,
        shared: e.data?.shared === true,
        owner,
        client,
        group,
        fence: e.fence,
        startUs: e.timeUs,
        startSeq: e.seq,
        endUs: undefined,
        endSeq: undefined,
        how: undefined,
        endReason: undefined,
        [SUCCESSOR]: undefined,
      };
      g.holding = h;
      if (this.forgetAfterUs === undefined) this.holdings.push(h);
      if (this.forgetAfterUs === undefined) push(this.holdingsByKey, key, h);
      if (r.holdings === undefined) r.holdings = [h];
      else r.holdings.push(h);
      this.awaitSuccessor(h);
      this.openOf(r);
      this.listeners.holdingStarted?.(h, e);
    }
  }

  private ended(e: TraceEvent, how: HoldingEnd): void {
    const owner = e.owner!;
    const r = this.known(e.peer ?? clientOf(owner), owner) ?? this.owners.get(owner);
    const i = r?.nodes === undefined ? -1 : findNode(r.nodes, e.actor);
    if (i === -1) return;
    const nodes = r!.nodes!;
    const nh = nodes[i]!;
    // An owner's lists of open node holdings and groups are dropped when they empty: a bounded derivation keeps its records ten minutes.
    if (nodes.length === 1) r!.nodes = undefined;
    else removeAt(nodes, i);
    nh.endUs = e.timeUs;
    nh.endSeq = e.seq;
    nh.endKind = e.kind;
    const group = groupOf(e);
    const groups = r!.groups;
    const gi = groups === undefined ? -1 : findGroup(groups, group);
    const g = gi === -1 ? undefined : groups![gi]!;
    // A group no node holds now ends at no count, as if from one.
    const count = (g === undefined || g.count === 0 ? 1 : g.count) - 1;
    if (g !== undefined) g.count = count;
    const h = g?.holding;
    if (h !== undefined && count < quorumOf(e)) {
      h.endUs = e.timeUs;
      h.endSeq = e.seq;
      h.how = how;
      h.endReason = e.reason;
      g!.holding = undefined;
      this.listeners.holdingEnded?.(h, e);
      this.closeOf(r!, e.timeUs);
    }
    if (g !== undefined && g.count === 0 && g.holding === undefined) {
      if (groups!.length === 1) r!.groups = undefined;
      else removeAt(groups!, gi);
    }
    this.closeOf(r!, e.timeUs);
  }

  /** `h` is the newest holding of its key: it settles every earlier one still waiting for a successor, and waits for its own. */
  private awaitSuccessor(h: Holding): void {
    const waiting = this.awaitingSuccessor.get(h.key);
    if (waiting === undefined) {
      this.awaitingSuccessor.set(h.key, [h]);
      return;
    }
    if (!h.shared) {
      let kept = 0;
      for (const w of waiting) {
        if (w.owner !== h.owner) (w as Tracked)[SUCCESSOR] = h;
        else waiting[kept++] = w;
      }
      while (waiting.length > kept) waiting.pop();
    }
    waiting.push(h);
  }

  /** One more of the owner's node holdings, holdings and beliefs is open (counted only by a bounded derivation). */
  private openOf(r: OwnerRecord): void {
    if (this.forgetAfterUs !== undefined) r.open++;
  }

  private closeOf(r: OwnerRecord, atUs: number): void {
    if (this.forgetAfterUs === undefined) return;
    r.open = Math.max(0, r.open - 1);
    if (r.open === 0) {
      this.closed.push(r);
      this.closedAtUs.push(atUs);
    }
  }

  /** Forgets every owner token that has had nothing open since before `beforeUs`. */
  private forgetBefore(beforeUs: number): void {
    while (this.closedHead < this.closed.length && this.closedAtUs[this.closedHead]! < beforeUs) {
      let r: OwnerRecord | undefined = this.closed[this.closedHead++]!;
      // A record forgotten already: its token may have been named again since, under a new one.
      if (r.forgotten) r = this.owners.get(r.owner);
      // Reopened since (a store that brought the key back), or already forgotten.
      if (r === undefined || r.open > 0 || (r.key === undefined && r.holdings === undefined)) continue;
      this.forget(r.owner, r);
    }
    if (this.closedHead > 1024 && this.closedHead * 2 > this.closed.length) {
      this.closed.splice(0, this.closedHead);
      this.closedAtUs.splice(0, this.closedHead);
      this.closedHead = 0;
    }
  }

  private forget(owner: string, r: OwnerRecord): void {
    for (const h of r.holdings ?? []) {
      // One that has its successor left the waiting list when it got it.
      if ((h as Tracked)[SUCCESSOR] !== undefined) continue;
      const waiting = this.awaitingSuccessor.get(h.key);
      if (waiting !== undefined) {
        const i = waiting.indexOf(h);
        if (i !== -1) waiting.splice(i, 1);
        if (waiting.length === 0) this.awaitingSuccessor.delete(h.key);
      }
    }
    // Its open node holdings and groups are none: nothing of it was open.
    r.forgotten = true;
    this.owners.delete(owner);
    this.listeners.forgot?.(owner);
  }
}

/** What the derivation knows of one owner token (see `IntervalTracker.owners`). */
interface OwnerRecord {
  readonly owner: string;
  /** The key it protects, as its client names it, once a client event named both. */
  key: string | undefined;
  holdings: Holding[] | undefined;
  beliefs: BeliefInterval[] | undefined;
  /** How many of its node holdings, holdings and beliefs are open (bounded derivations only). */
  open: number;
  /** Its node holdings open now, one per store node. */
  nodes: NodeHolding[] | undefined;
  /** Per group of nodes: how many of them hold it now, and the holding open while they make a quorum. */
  groups: GroupCount[] | undefined;
  /** Set when a bounded derivation forgot it: a client's record that still points here looks the owner up again. */
  forgotten: boolean;
}

/** What the derivation keeps of one client: its open belief, and the owner token its last event named with that owner's record. */
export interface ActorRecord {
  belief: BeliefInterval | undefined;
  /** The record of the open belief's owner token. */
  beliefRecord: OwnerRecord | undefined;
  owner: string | undefined;
  record: OwnerRecord | undefined;
}

interface GroupCount {
  readonly group: string;
  count: number;
  holding: Holding | undefined;
}

/** Where the open node holding of `node` is among an owner's, or -1. */
function findNode(nodes: readonly NodeHolding[], node: string): number {
  for (let i = 0; i < nodes.length; i++) if (nodes[i]!.node === node) return i;
  return -1;
}

/** Where the count of `group` is among an owner's, or -1. */
function findGroup(groups: readonly GroupCount[], group: string): number {
  for (let i = 0; i < groups.length; i++) if (groups[i]!.group === group) return i;
  return -1;
}

/** The count of `group` among an owner's, made at zero when first needed. */
function groupIn(r: OwnerRecord, group: string): GroupCount {
  const groups = r.groups;
  const i = groups === undefined ? -1 : findGroup(groups, group);
  if (i !== -1) return groups![i]!;
  const g: GroupCount = { group, count: 0, holding: undefined };
  if (groups === undefined) r.groups = [g];
  else groups.push(g);
  return g;
}

/** Where `h` stands among holdings in start order, by binary search on the grant's seq. */
function positionOf(list: readonly Holding[], h: Holding): number {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = list[mid]!.startSeq;
    if (s === h.startSeq) return mid;
    if (s < h.startSeq) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** Every interval of a whole trace. */
export interface Intervals {
  readonly holdings: readonly Holding[];
  readonly nodeHoldings: readonly NodeHolding[];
  readonly beliefs: readonly BeliefInterval[];
  readonly windows: readonly OwnershipWindow[];
  readonly lastUs: number;
  /** Lock cycles (belief intervals begun), and those another client's belief overlapped (see IntervalTracker). */
  readonly beliefsBegun: number;
  readonly beliefsDoubleOwned: number;
}

export function deriveIntervals(events: readonly TraceEvent[]): Intervals {
  const t = new IntervalTracker();
  for (const e of events) t.push(e);
  t.finish();
  return t;
}
