import type { Verdict } from '../check/verdict.js';
import { formatDuration, formatInstant, US_PER_MS } from '../time.js';
import type { TraceEvent } from '../trace/types.js';
import { describeQuery, findEvent } from './query.js';
import type { Expect, ExpectName, MsRange } from './types.js';

/** What a run gives the statements: its events, the checker's verdict on them, and why the run stopped. */
export interface Judged {
  readonly events: readonly TraceEvent[];
  readonly verdict: Verdict;
  readonly stop: string;
}

/** A statement checked against a run: whether it holds, and what the run had instead when it does not. */
export interface Checked {
  readonly ok: boolean;
  /** The statement in words. */
  readonly statement: string;
  /** What the run showed, in words. */
  readonly found: string;
}

export const EXPECT_NAMES: readonly ExpectName[] = [
  'outcome',
  'doubleOwnership',
  'staleWrite',
  'rejectedWrite',
  'lostLock',
  'event',
  'noEvent',
  'gap',
  'writes',
  'unprotectedWrite',
  'lockOut',
  'stopped',
];

export function expectName(e: Expect): ExpectName {
  return Object.keys(e)[0] as ExpectName;
}

function inRange(us: number, r: MsRange | undefined): boolean {
  if (r === undefined) return true;
  return (r.minMs === undefined || us >= r.minMs * US_PER_MS) && (r.maxMs === undefined || us <= r.maxMs * US_PER_MS);
}

function rangeText(r: MsRange | undefined): string {
  if (r === undefined) return '';
  const a = r.minMs === undefined ? undefined : formatDuration(r.minMs * US_PER_MS);
  const b = r.maxMs === undefined ? undefined : formatDuration(r.maxMs * US_PER_MS);
  if (a !== undefined && b !== undefined) return `between ${a} and ${b}`;
  if (a !== undefined) return `at least ${a}`;
  return b === undefined ? '' : `at most ${b}`;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** A count of writes as a sentence says it: "no writes", "1 write", "2 writes". */
const count = (n: number): string => (n === 0 ? 'no writes' : plural(n, 'write'));

function writesOf(events: readonly TraceEvent[], client: string | undefined): { accepted: number; rejected: number } {
  let accepted = 0;
  let rejected = 0;
  for (const e of events) {
    if (client !== undefined && e.peer !== client) continue;
    if (e.kind === 'write.accepted') accepted++;
    else if (e.kind === 'write.rejected') rejected++;
  }
  return { accepted, rejected };
}

/** Checks one statement against a judged run. */
export function evaluate(x: Expect, run: Judged): Checked {
  const v = run.verdict;
  if ('outcome' in x) {
    const want: readonly string[] = typeof x.outcome === 'string' ? [x.outcome] : x.outcome;
    return { ok: want.includes(v.outcome), statement: `the outcome is ${want.join(' or ')}`, found: `the outcome is ${v.outcome}` };
  }
  if ('stopped' in x) return { ok: run.stop === x.stopped, statement: `the run stops: ${x.stopped}`, found: `the run stopped: ${run.stop}` };
  if ('doubleOwnership' in x) {
    const windows = v.doubleOwnership.map(
      (d) => `${d.clients[0]} and ${d.clients[1]} from ${formatInstant(d.fromUs)} for ${formatDuration(d.toUs - d.fromUs)}`,
    );
    const found = windows.length === 0 ? 'no double ownership' : `double ownership: ${windows.join('; ')}`;
    const d = x.doubleOwnership;
    if (d === 'none') return { ok: v.doubleOwnership.length === 0, statement: 'no two clients ever both believe they hold the lock', found };
    const want = [...d.clients].sort().join();
    const ok = v.doubleOwnership.some((w) => [...w.clients].sort().join() === want && inRange(w.fromUs, d.from) && inRange(w.toUs - w.fromUs, d.lasting));
    const when = [d.from === undefined ? '' : `starting ${rangeText(d.from)}`, d.lasting === undefined ? '' : `lasting ${rangeText(d.lasting)}`].filter(
      (s) => s !== '',
    );
    return { ok, statement: `${d.clients[0]} and ${d.clients[1]} both believe they hold the lock${when.length > 0 ? `, ${when.join(', ')}` : ''}`, found };
  }
  if ('staleWrite' in x) {
    const found =
      v.staleWrites.length === 0
        ? 'no stale write'
        : v.staleWrites.map((w) => `${w.client}'s stale write (token ${w.fence ?? 'none'}) ${w.accepted ? 'accepted' : 'rejected'}`).join('; ');
    const s = x.staleWrite;
    if (s === 'none') return { ok: v.staleWrites.length === 0, statement: 'no stale write reaches the resource', found };
    const ok = v.staleWrites.some((w) => w.client === s.client && w.accepted === s.accepted && (s.fence === undefined || w.fence === s.fence));
    return {
      ok,
      statement: `${s.client}'s stale write${s.fence === undefined ? '' : ` with token ${s.fence}`} is ${s.accepted ? 'accepted' : 'rejected'}`,
      found,
    };
  }
  if ('rejectedWrite' in x) {
    const r = x.rejectedWrite;
    const rejected = run.events.filter((e) => e.kind === 'write.rejected');
    const ok = rejected.some(
      (e) =>
        e.peer === r.client &&
        (r.fence === undefined || e.fence === r.fence) &&
        (r.highest === undefined || e.data?.highestFence === r.highest) &&
        (r.reason === undefined || (e.reason ?? '').includes(r.reason)),
    );
    const found =
      rejected.length === 0
        ? 'no write was rejected'
        : rejected
            .map(
              (e) => `${e.peer}'s write with token ${e.fence ?? 'none'} rejected (highest seen ${String(e.data?.highestFence ?? 'none')}: ${e.reason ?? ''})`,
            )
            .join('; ');
    const tokens = r.fence === undefined ? '' : r.highest === undefined ? ` with token ${r.fence}` : `: ${r.fence} < ${r.highest}`;
    return { ok, statement: `the resource rejects ${r.client}'s write${tokens}${r.reason === undefined ? '' : ` (${r.reason})`}`, found };
  }
  if ('lostLock' in x) {
    const found =
      v.lostLocks.length === 0 ? 'no lost lock' : v.lostLocks.map((l) => `${l.client} lost the lock at ${formatInstant(l.atUs)} (${l.how})`).join('; ');
    const l = x.lostLock;
    if (l === 'none') return { ok: v.lostLocks.length === 0, statement: 'no client loses the lock while it still believes it holds it', found };
    const ok = v.lostLocks.some((f) => f.client === l.client && (l.how === undefined || f.how === l.how));
    return { ok, statement: `${l.client} loses the lock${l.how === undefined ? '' : ` (${l.how})`} while it still believes it holds it`, found };
  }
  if ('event' in x) {
    const e = findEvent(run.events, x.event);
    return {
      ok: e !== undefined,
      statement: `there is ${describeQuery(x.event)}`,
      found: e === undefined ? 'there is none' : `event ${e.seq} at ${formatInstant(e.timeUs)}`,
    };
  }
  if ('noEvent' in x) {
    const e = findEvent(run.events, x.noEvent);
    return {
      ok: e === undefined,
      statement: `there is no ${describeQuery(x.noEvent).replace(/^the first /, '')}`,
      found: e === undefined ? 'none' : `event ${e.seq} at ${formatInstant(e.timeUs)}`,
    };
  }
  if ('gap' in x) {
    const g = x.gap;
    const a = findEvent(run.events, g.from);
    const b = findEvent(run.events, g.to);
    const statement = `from ${describeQuery(g.from)} to ${describeQuery(g.to)} takes ${rangeText(g)}`;
    if (a === undefined || b === undefined)
      return { ok: false, statement, found: `${a === undefined ? describeQuery(g.from) : describeQuery(g.to)} does not happen` };
    const us = b.timeUs - a.timeUs;
    return { ok: us >= 0 && inRange(us, g), statement, found: `it takes ${formatDuration(us)}` };
  }
  if ('unprotectedWrite' in x) {
    const found =
      v.unprotectedWrites.length === 0
        ? 'no unprotected write'
        : v.unprotectedWrites.map((w) => `${w.client}'s write at ${formatInstant(w.timeUs)} after its lock had ended (${w.how})`).join('; ');
    const u = x.unprotectedWrite;
    if (u === 'none') return { ok: v.unprotectedWrites.length === 0, statement: 'no write goes out after its own lock has ended', found };
    return {
      ok: v.unprotectedWrites.some((w) => w.client === u.client),
      statement: `${u.client} writes after its own lock has ended, with nobody granted it since`,
      found,
    };
  }
  if ('lockOut' in x) {
    const l = x.lockOut;
    const a = v.availability.find((c) => c.client === l.client);
    // Said as the verdict says it (summary.ts): time waited while nobody used the lock, which may all be time the key was free.
    const statement = `${l.client} waits ${rangeText(l) || 'some time'} while nobody is using the lock (its lock-out time)`;
    if (a === undefined) return { ok: false, statement, found: `${l.client} never waited for the lock` };
    return { ok: inRange(a.lockOutUs, l), statement, found: `${l.client} waited ${formatDuration(a.lockOutUs)} while nobody was using the lock` };
  }
  const w = x.writes;
  const n = writesOf(run.events, w.client);
  const ok = (w.accepted === undefined || n.accepted === w.accepted) && (w.rejected === undefined || n.rejected === w.rejected);
  const from = w.client === undefined ? '' : ` from ${w.client}`;
  const want = [w.accepted === undefined ? '' : `accepted ${count(w.accepted)}`, w.rejected === undefined ? '' : `rejected ${count(w.rejected)}`].filter(
    (s) => s !== '',
  );
  return {
    ok,
    statement: `the resource ${want.join(' and ')}${from}`,
    found: `it accepted ${count(n.accepted)}${from} and rejected ${n.rejected === 0 ? 'none' : count(n.rejected)}`,
  };
}

/** Checks every statement; the run passes when all hold. */
export function evaluateAll(xs: readonly Expect[], run: Judged): { ok: boolean; checked: Checked[] } {
  const checked = xs.map((x) => evaluate(x, run));
  return { ok: checked.every((c) => c.ok), checked };
}
