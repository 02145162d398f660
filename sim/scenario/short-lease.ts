import { meanMs, type Distribution } from '../kernel/dist.js';
import { storeKind } from '../stores/registry.js';
import { formatDuration, msToUs } from '../time.js';
import type { Step } from './steps.js';
import type { ClientSpec, Scenario } from './types.js';

/*
 * Durations are in milliseconds, and a TTL written in seconds ("ttlMs": 30
 * for 30 s) is a valid scenario that silently runs a 30 ms lease: every
 * cycle then breaks, and the odds a sweep reports answer a question nobody
 * asked. A scenario may do it on purpose (a lease shorter than the network's
 * round trip is a lesson), so this is a note beside the result, never a
 * refusal. Rendered when shown, never stored or hashed.
 */

/**
 * How a note quotes the TTL it is about: a value (or "1000 to 2800") as the
 * reader writes it. A file and the command line write the scenario's JSON
 * field ("ttlMs": 30); a form writes the label beside its box.
 */
export type TtlWords = (value: string) => string;

/** The TTL as a scenario file writes it: "ttlMs": 30. */
export const JSON_TTL: TtlWords = (value) => `"ttlMs": ${value}`;

/** What a client's lease should outlast and does not: its work (fixed, on average, or at the least), or a round trip to the store. */
interface Outlasted {
  readonly what: 'work' | 'mean work' | 'shortest work' | 'round trip';
  readonly ms: number;
  /** The writes that work comes before, when more than one: `ms` is the work of them all. */
  readonly writes?: number;
}

/**
 * One note per group of clients with the same lease and the same reason it
 * is too short, "Note: …": the lease ends before the work it covers, or
 * before a grant can come back from the store. None on a store whose locks
 * never expire, since it reads no TTL.
 */
export function shortLeaseNotes(s: Pick<Scenario, 'store' | 'network' | 'clients'>, ttl: TtlWords = JSON_TTL): string[] {
  return sweepLeaseNotes([s], ttl);
}

/**
 * The notes of a sweep's combinations, merged: a sweep over ten TTLs says
 * once that A's lease ends before its work at "ttlMs" 1000 to 2800, in 10
 * of the 11 combinations, not ten times.
 */
export function sweepLeaseNotes(scenarios: ReadonlyArray<Pick<Scenario, 'store' | 'network' | 'clients'>>, ttl: TtlWords = JSON_TTL): string[] {
  // Each client's shortfalls of one kind, over every combination: the TTLs, the times they fall short of, and in how many combinations.
  const byClient = new Map<string, { name: string; what: Outlasted['what']; writes: number; ttls: Set<number>; took: Set<number>; combos: Set<number> }>();
  scenarios.forEach((s, i) => {
    const kind = storeKind(s.store.kind);
    if (kind === undefined || !kind.capabilities.expiring) return;
    for (const c of s.clients) {
      const over = outlasted(c, s);
      if (over === undefined) continue;
      const at = `${c.name}|${over.what}|${over.writes ?? 1}`;
      const found = byClient.get(at) ?? { name: c.name, what: over.what, writes: over.writes ?? 1, ttls: new Set(), took: new Set(), combos: new Set() };
      byClient.set(at, found);
      found.ttls.add(c.ttlMs);
      found.took.add(over.ms);
      found.combos.add(i);
    }
  });
  // Clients that fall short alike share a note.
  const groups = new Map<string, { names: string[]; what: Outlasted['what']; writes: number; ttls: number[]; took: number[]; combos: number }>();
  for (const f of byClient.values()) {
    const ttls = [...f.ttls].sort((a, b) => a - b);
    const took = [...f.took].sort((a, b) => a - b);
    const at = `${f.what}|${f.writes}|${ttls.join()}|${took.join()}|${[...f.combos].join()}`;
    const g = groups.get(at);
    if (g === undefined) groups.set(at, { names: [f.name], what: f.what, writes: f.writes, ttls, took, combos: f.combos.size });
    else g.names.push(f.name);
  }
  return [...groups.values()].map((g) => note(g, scenarios.length, ttl));
}

function note(
  g: { names: string[]; what: Outlasted['what']; writes: number; ttls: number[]; took: number[]; combos: number },
  combos: number,
  ttl: TtlWords,
): string {
  const one = g.names.length === 1;
  const whose = one ? `${g.names[0]}'s lease` : `The leases of ${g.names.join(', ')}`;
  const its = one ? 'its' : 'their';
  const ms = (v: number): string => formatDuration(msToUs(v));
  const lease = `${whose} (${ttl(span(g.ttls, String))}, ${span(g.ttls, ms)})`;
  const took = span(g.took, ms);
  const said =
    g.what === 'round trip'
      ? `${lease} can run out before the store's reply arrives (a round trip takes up to ${took}), so a grant can come back already expired`
      : `${lease} ${one ? 'ends' : 'end'} before ${g.what === 'shortest work' ? `even ${its} shortest work` : `${its} work`} (${took}${g.what === 'mean work' ? ' on average' : ''}${g.writes > 1 ? ` for ${its} ${g.writes} writes` : ''}) does, so ${one ? 'it works' : 'they work'} on past ${its} lock with no fault at all`;
  const where = g.combos < combos ? `, in ${g.combos} of the ${combos} combinations swept` : '';
  // A TTL under a second that would cover the work as seconds was most likely written in seconds.
  const least = g.ttls[0]!;
  const most = g.ttls[g.ttls.length - 1]!;
  const seconds =
    most < 1000 && least * 1000 > g.took[g.took.length - 1]!
      ? ` Durations are in milliseconds: did you mean ${span(g.ttls, (v) => ms(v * 1000))}, ${ttl(span(g.ttls, (v) => String(v * 1000)))}?`
      : '';
  return `Note: ${said}${where}.${seconds}`;
}

/** Sorted values as one, or as "least to most". */
function span(sorted: readonly number[], show: (v: number) => string): string {
  return sorted.length === 1 ? show(sorted[0]!) : `${show(sorted[0]!)} to ${show(sorted[sorted.length - 1]!)}`;
}

/** The longest thing a client's lease must cover and does not, if any: its work (unless it refreshes), else a round trip to the store. */
function outlasted(c: ClientSpec, s: Pick<Scenario, 'store' | 'network'>): Outlasted | undefined {
  const work = workUnderLock(c);
  if (work !== undefined && work.ms > c.ttlMs) return work;
  // A store on the client's own machine answers over loopback, without the network's latency.
  if (s.store.machine === c.machine) return undefined;
  const roundTripMs = 2 * s.network.latencyMaxMs;
  if (roundTripMs > c.ttlMs) return { what: 'round trip', ms: roundTripMs };
  return undefined;
}

/**
 * The work a client's lease must cover: its longest work step, by the least
 * a drawn time can be (its mean for an exponential draw, whose least is
 * zero). None for a client that refreshes its lease, whatever its work.
 */
function workUnderLock(c: ClientSpec): Outlasted | undefined {
  if (c.steps === null) {
    if (c.refreshEveryMs !== null && c.refreshEveryMs < c.ttlMs) return undefined;
    // A lifecycle client works before each of its writes, all under the one lock.
    const one = c.workTime === undefined ? { what: 'work' as const, ms: c.workMs } : drawnWork(c.workTime);
    const writes = Math.max(c.writes, 1);
    return writes === 1 ? one : { ...one, ms: one.ms * writes, writes };
  }
  let longest: Outlasted | undefined;
  let refreshes = false;
  const walk = (steps: readonly Step[]): void => {
    for (const st of steps) {
      if (st.step === 'refresh' || (st.step === 'work' && st.refreshEveryMs !== null)) refreshes = true;
      else if (st.step === 'work') {
        const w: Outlasted = st.time === undefined ? { what: 'work', ms: st.durationMs } : drawnWork(st.time);
        if (longest === undefined || w.ms > longest.ms) longest = w;
      } else if (st.step === 'if') {
        walk(st.then);
        walk(st.else);
      } else if (st.step === 'repeat') {
        walk(st.steps);
        walk(st.finally);
      } else if (st.step === 'fork') walk(st.steps);
    }
  };
  walk(c.steps);
  return refreshes ? undefined : longest;
}

function drawnWork(d: Distribution): Outlasted {
  switch (d.distribution) {
    case 'fixed':
      return { what: 'work', ms: d.ms };
    case 'exponential':
      return { what: 'mean work', ms: meanMs(d) };
    default:
      return { what: 'shortest work', ms: d.minMs };
  }
}
