import type { Verdict } from '../check/verdict.js';
import type { TraceDocument, TraceEvent } from '../trace/types.js';

/** What agreement between a simulated and a real run means: the same outcome, the same double-ownership finding. */
export interface Finding {
  readonly outcome: Verdict['outcome'];
  /** Pairs of clients that both believed they held a key, sorted. */
  readonly doubleOwnership: string[];
}

export function findingOf(v: Verdict): Finding {
  const pairs = new Set(v.doubleOwnership.map((d) => [...d.clients].sort().join('+')));
  return { outcome: v.outcome, doubleOwnership: [...pairs].sort() };
}

export function agree(a: Verdict, b: Verdict): boolean {
  return JSON.stringify(findingOf(a)) === JSON.stringify(findingOf(b));
}

/** One row of the aligned timelines: the same client event (its n-th of that kind) in both runs. */
export interface AlignedRow {
  readonly actor: string;
  readonly kind: string;
  /** For a store's or the resource's event: the client whose lock or write it is ("B"). */
  readonly whose?: string;
  readonly simUs: number | null;
  readonly realUs: number | null;
}

/** The events both timelines can be lined up by: what clients did and what the resource took. */
function alignable(e: TraceEvent): boolean {
  return e.believes !== undefined || e.actor === 'resource' || e.kind === 'process.pause' || e.kind === 'process.resume' || e.kind.startsWith('lock.');
}

/** The client an owner token belongs to ("B" for "B:2"), for the events of stores and the resource, which act for someone else. */
function whoseOf(e: TraceEvent): string | undefined {
  if (e.believes !== undefined || e.owner === undefined) return undefined;
  const at = e.owner.lastIndexOf(':');
  return at === -1 ? e.owner : e.owner.slice(0, at);
}

/**
 * Lines up two traces of one scenario: each actor's n-th event of a kind in
 * one is matched with its n-th event of that kind in the other, in the order
 * of the simulated run (events only one run has are listed where they fall).
 * A store's or the resource's events are counted per client they are for,
 * so B's accepted write in one run is never lined up with A's in the other.
 */
export function alignTimelines(sim: TraceDocument, real: TraceDocument): AlignedRow[] {
  const keyed = (events: readonly TraceEvent[]): Map<string, number> => {
    const seen = new Map<string, number>();
    const out = new Map<string, number>();
    for (const e of events) {
      if (!alignable(e)) continue;
      const base = `${e.actor}\u0000${e.kind}\u0000${whoseOf(e) ?? ''}`;
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      out.set(`${base}\u0000${n}`, e.timeUs);
    }
    return out;
  };
  const row = (k: string, simUs: number | null, realUs: number | null): AlignedRow => {
    const [actor, kind, whose] = k.split('\u0000') as [string, string, string];
    return { actor, kind, ...(whose === '' ? {} : { whose }), simUs, realUs };
  };
  const s = keyed(sim.events);
  const r = keyed(real.events);
  const rows: AlignedRow[] = [];
  for (const [k, simUs] of s) rows.push(row(k, simUs, r.get(k) ?? null));
  for (const [k, realUs] of r) if (!s.has(k)) rows.push(row(k, null, realUs));
  return rows.sort((a, b) => (a.simUs ?? a.realUs ?? 0) - (b.simUs ?? b.realUs ?? 0));
}

/** Client events that are not what a Lock call answered: requests, conflicts retried, timing, a Combined store's own bookkeeping. */
const NOT_AN_ANSWER =
  /\.request$|^acquire\.(denied|timeout|error)$|^(msg|client|work|sleep|process|session|quorum)\.|^autorelease\.check$|^exists\.reply$|^lifetime\.read$/;

/**
 * What `client` (and each child it forked) was answered, in order: each
 * acquire that succeeded or gave up, each refresh, check, release, write and
 * exception. Conflicts that were retried are left out, since how many polls
 * fit in a wait depends on real timing. Two runs that agree step by step give
 * the same list.
 */
export function answersOf(doc: TraceDocument, client: string): string[] {
  return answerEventsOf(doc.events, client).map((e) => `${e.actor} ${e.kind}`);
}

/** The events of `answersOf`, with their times. */
export function answerEventsOf(events: readonly TraceEvent[], client: string): TraceEvent[] {
  return events.filter((e) => (e.actor === client || e.actor.startsWith(`${client}/`)) && e.believes !== undefined && !NOT_AN_ANSWER.test(e.kind));
}

/** One client answer in a run: who, what, when (true time). */
export interface Answer {
  readonly actor: string;
  readonly kind: string;
  readonly atUs: number;
}

/**
 * How a simulated run and a real run of one scenario compare, answer by
 * answer. Real times never equal simulated ones to the microsecond, so two
 * runs part where a client's answers first differ (an acquire refused in one
 * and granted in the other, a release that found the lock lost), not where
 * two timestamps do.
 */
export interface AnswerComparison {
  /** The earliest answer that differs, as each run has it (null where that run has no answer there). */
  readonly parting: { readonly client: string; readonly sim: Answer | null; readonly real: Answer | null } | null;
  /** Of the answers both runs share, the one whose times lie furthest apart. */
  readonly widest: { readonly sim: Answer; readonly realUs: number } | null;
  /** How many answers the runs share, in order, before any parting. */
  readonly shared: number;
}

const asAnswer = (e: TraceEvent): Answer => ({ actor: e.actor, kind: e.kind, atUs: e.timeUs });

export function compareAnswers(sim: readonly TraceEvent[], real: readonly TraceEvent[], clients: readonly string[]): AnswerComparison {
  let parting: AnswerComparison['parting'] = null;
  let widest: AnswerComparison['widest'] = null;
  let shared = 0;
  for (const client of clients) {
    const a = answerEventsOf(sim, client);
    const b = answerEventsOf(real, client);
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const x = a[i];
      const y = b[i];
      if (x !== undefined && y !== undefined && x.actor === y.actor && x.kind === y.kind) {
        shared++;
        if (widest === null || Math.abs(y.timeUs - x.timeUs) > Math.abs(widest.realUs - widest.sim.atUs)) widest = { sim: asAnswer(x), realUs: y.timeUs };
        continue;
      }
      const at = Math.min(x?.timeUs ?? Infinity, y?.timeUs ?? Infinity);
      const before = parting === null ? Infinity : Math.min(parting.sim?.atUs ?? Infinity, parting.real?.atUs ?? Infinity);
      if (at < before) parting = { client, sim: x === undefined ? null : asAnswer(x), real: y === undefined ? null : asAnswer(y) };
      break;
    }
  }
  return { parting, widest, shared };
}
