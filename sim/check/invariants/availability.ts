import { kindSpec } from '../../trace/kinds.js';
import type { TraceEvent } from '../../trace/types.js';
import type { Holding } from '../intervals.js';
import type { ClientAvailability, Span } from '../verdict.js';

/** Events that begin a wait for the lock, when the client is not already waiting. */
const WAIT_STARTS = new Set(['acquire.request', 'exists.request']);
/** Answers that keep a client out: from then on, time the lock is free is time lost. */
const KEPT_OUT = new Set(['acquire.denied', 'acquire.timeout', 'acquire.error', 'quorum.missed']);
/** Events that end a wait: the lock is granted, given up, thrown out of acquire(), or the process ends. */
const WAIT_ENDS = new Set(['acquire.ok', 'acquire.giveup', 'process.crash', 'client.done']);
/**
 * What a client records while a work step goes on: the refreshes it makes
 * while working (a quorum store's rounds included), and what happens to its
 * process meanwhile. Any other event of its own is the next
 * step, which ends the work.
 */
const DURING_WORK = new Set(['refresh.request', 'refresh.ok', 'quorum.missed', 'process.pause', 'process.resume', 'session.lost']);

interface ClientState {
  readonly result: ClientAvailability;
  readonly key: string;
  /** The wait in progress; `keptOut` once the store refused it or queued it (until then the client is merely asking). */
  wait: { fromUs: number; seq: number; keptOut: boolean; owner: string | undefined } | undefined;
  work: { owner: string; seq: number } | undefined;
  paused: boolean;
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
  private readonly open = new Set<Holding>();
  private readonly gone = new Set<string>();
  /** The owner token each client believes it holds, if any. */
  private readonly believed = new Map<string, string>();
  private lastUs = 0;
  private lastSeq = 0;

  holdingStarted(h: Holding): void {
    this.open.add(h);
  }

  holdingEnded(h: Holding): void {
    this.open.delete(h);
  }

  /** Called before each event is applied: accounts for the time since the last one. */
  advance(e: TraceEvent): void {
    const fromUs = this.lastUs;
    if (e.timeUs > fromUs) {
      for (const [name, c] of this.clients) {
        if (c.wait !== undefined && c.wait.keptOut) this.waited(name, c, fromUs, e.timeUs, e.seq);
        if (c.wait !== undefined) c.result.waitedUs += e.timeUs - fromUs;
        if (c.work !== undefined && !c.paused && !this.holds(c.work.owner)) add(c.result.workWithoutLock, fromUs, e.timeUs, [c.work.seq, e.seq]);
        if (c.work !== undefined && !c.paused) c.result.workedUs += e.timeUs - fromUs;
      }
    }
    this.lastUs = e.timeUs;
    this.lastSeq = e.seq;
  }

  /** Applies a client's event (after the interval derivation has seen it). */
  push(e: TraceEvent): void {
    if (e.kind === 'lock.queued' && e.peer !== undefined) {
      const w = this.clients.get(e.peer)?.wait;
      if (w !== undefined) w.keptOut = true;
      return;
    }
    if (kindSpec(e.kind)?.actor !== 'client' || e.believes === undefined) return;
    const c = this.state(e);
    if (e.believes.holds && e.believes.owner !== undefined) this.believed.set(e.actor, e.believes.owner);
    // A release in flight still counts as using the lock: the holder is giving it back.
    else if (!(e.kind === 'release.request' && e.owner !== undefined && this.believed.get(e.actor) === e.owner)) this.believed.delete(e.actor);
    if (e.kind === 'process.pause') c.paused = true;
    else if (e.kind === 'process.resume') c.paused = false;
    if (c.work !== undefined && !DURING_WORK.has(e.kind)) c.work = undefined;
    if (e.kind === 'work.start' && e.owner !== undefined) c.work = { owner: e.owner, seq: e.seq };
    if (c.wait === undefined && WAIT_STARTS.has(e.kind) && !e.believes.holds) c.wait = { fromUs: e.timeUs, seq: e.seq, keptOut: false, owner: e.owner };
    else if (c.wait !== undefined && (KEPT_OUT.has(e.kind) || (e.kind === 'exists.reply' && e.data?.free === false))) c.wait.keptOut = true;
    if (c.wait !== undefined && (WAIT_ENDS.has(e.kind) || e.kind.startsWith('exception.'))) c.wait = undefined;
    if (e.kind === 'process.crash' || e.kind === 'client.done') {
      this.gone.add(e.actor);
      this.believed.delete(e.actor);
      c.work = undefined;
    }
  }

  finish(): ClientAvailability[] {
    return [...this.clients.values()].map((c) => {
      const r = c.result;
      r.lockOutUs = total(r.lockOut);
      r.workWithoutLockUs = total(r.workWithoutLock);
      return r;
    });
  }

  private state(e: TraceEvent): ClientState {
    let c = this.clients.get(e.actor);
    if (c === undefined) {
      c = {
        result: { client: e.actor, waitedUs: 0, lockOutUs: 0, lockOut: [], workedUs: 0, workWithoutLockUs: 0, workWithoutLock: [] },
        key: e.key ?? '',
        wait: undefined,
        work: undefined,
        paused: false,
      };
      this.clients.set(e.actor, c);
    }
    return c;
  }

  /** Whether some running process believes it holds `owner`'s lock, or is still hearing that it was granted. */
  private inUse(owner: string): boolean {
    for (const o of this.believed.values()) if (o === owner) return true;
    for (const c of this.clients.values()) if (c.wait?.owner === owner) return true;
    return false;
  }

  private holds(owner: string): boolean {
    for (const h of this.open) if (h.owner === owner) return true;
    return false;
  }

  private waited(name: string, c: ClientState, fromUs: number, toUs: number, endSeq: number): void {
    let holder: Holding | undefined;
    let orphaned = false;
    for (const h of this.open) {
      if (h.key !== c.key || h.client === name) continue;
      // Held by someone who can still use it: that is waiting, not lock-out.
      if (this.inUse(h.owner)) return;
      if (!this.gone.has(h.client)) orphaned = true;
      holder = h;
    }
    const why = holder === undefined ? 'free' : orphaned ? 'orphaned' : 'holder-gone';
    const spans = c.result.lockOut;
    const last = spans[spans.length - 1];
    if (last !== undefined && last.toUs === fromUs && last.why === why && last.holder === (holder?.client ?? null)) {
      last.toUs = toUs;
      last.seqs[last.seqs.length - 1] = endSeq;
      return;
    }
    // The wait's first request, the event after which the key was free (or its holder gone), and the one that ended the stretch.
    spans.push({ fromUs, toUs, seqs: [c.wait!.seq, this.lastSeq, endSeq], why, holder: holder?.client ?? null });
  }
}

/** Appends [fromUs, toUs) to `spans`, joining it to the last span when they touch. */
function add(spans: Span[], fromUs: number, toUs: number, seqs: number[]): void {
  const last = spans[spans.length - 1];
  if (last !== undefined && last.toUs === fromUs && last.seqs[0] === seqs[0]) {
    last.toUs = toUs;
    last.seqs[last.seqs.length - 1] = seqs[seqs.length - 1]!;
    return;
  }
  spans.push({ fromUs, toUs, seqs });
}

function total(spans: readonly Span[]): number {
  let us = 0;
  for (const s of spans) us += s.toUs - s.fromUs;
  return us;
}
