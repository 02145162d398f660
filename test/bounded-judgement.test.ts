import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundedFor, capVerdict, Checker, SPANS_KEPT } from '../sim/check/checker.js';
import { lockOutShares, type Verdict } from '../sim/check/verdict.js';
import { sentences, summarize } from '../sim/check/summary.js';
import { runJob, runScenario } from '../sim/run.js';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import type { TraceEvent } from '../sim/trace/types.js';
import { workloadScenario } from '../bench/workload.js';
import { formatVerdict, SENTENCES_SHOWN } from '../sim/cli/format.js';
import { BUILTIN_SCENARIOS } from '../sim/scenarios/index.js';
import { createColors } from 'picocolors';
import { builtinRuns } from './support/builtin-variants.js';
import { TraceBuilder } from './support/trace-builder.js';
import { IntervalTracker } from '../sim/check/intervals.js';
import { normalized, randomScenario } from './support/random-scenario.js';

/** Judges `events` in bounded memory, forgetting acquisitions `forgetUs` after they closed; returns the verdict and the most owners it remembered at once. */
function bounded(events: readonly TraceEvent[], forgetUs: number): { verdict: Verdict; peakOwners: number } {
  const c = new Checker({ forgetAfterUs: forgetUs });
  let peakOwners = 0;
  for (const e of events) {
    c.push(e);
    peakOwners = Math.max(peakOwners, c.intervals.ownersKept);
  }
  return { verdict: c.finish(), peakOwners };
}

/** Judges `events` whole and lists every span of lock-out, free key or not: what the kept and bounded judgements each list a part of. */
function everySpan(events: readonly TraceEvent[]): Verdict {
  const c = new Checker({ spansListed: Infinity });
  for (const e of events) c.push(e);
  return c.finish();
}

describe('judging a run in bounded memory', () => {
  it('gives every built-in run the verdict of the whole trace, byte for byte', () => {
    for (const { label, scenario } of builtinRuns()) {
      const kept = runScenario(scenario);
      const job = runJob(scenario, scenario.seed, { hash: false, bounded: true });
      expect(JSON.stringify(job.verdict), label).toBe(JSON.stringify(kept.verdict));
      expect(job.intervals.holdings, label).toEqual([]);
    }
  });

  it('gives random runs the verdict of the whole trace even when it forgets acquisitions five seconds after they end', () => {
    fc.assert(
      fc.property(randomScenario, (doc) => {
        const scenario = normalized(doc);
        const { events, verdict } = runScenario(scenario);
        expect(JSON.stringify(bounded(events, 5_000_000 + 100 * scenario.network.latencyMaxMs * 1000).verdict)).toBe(JSON.stringify(verdict));
      }),
      { numRuns: 300, seed: 17 },
    );
  });

  it("files a forgotten owner token, named again, under its client's key once more", () => {
    // The store sees the key under a prefix. A:1 is forgotten after its release; the client then asks again with the same token.
    const t = new TraceBuilder()
      .client(0, 'acquire.request', 'A', { owner: 'A:1' })
      .granted(1, 'A:1', 'lock:job')
      .believes(2, 'A', 'A:1')
      .client(3, 'release.request', 'A', { owner: 'A:1' })
      .ended(4, 'lock.released', 'A:1', 'lock:job')
      .client(1_000, 'acquire.request', 'A', { owner: 'A:1' })
      .granted(1_001, 'A:1', 'lock:job');
    const tracker = new IntervalTracker({}, { forgetAfterUs: 100 });
    for (const e of t.events.slice(0, 5)) tracker.push(e);
    expect(tracker.holdingsOf('A:1')!.map((h) => h.key)).toEqual(['job']);
    for (const e of t.events.slice(5)) tracker.push(e);
    // Its record was made afresh at the new request: the new grant is filed under the client's key, not the store's.
    expect(tracker.holdingsOf('A:1')!.map((h) => [h.key, h.startUs])).toEqual([['job', 1_001]]);
  });

  it('remembers only the recent acquisitions of a long run, and still finds what the whole trace finds', () => {
    // 4,000 lock cycles of the bench workload: about 126 s of simulated time, judged with a 10 s memory.
    const scenario = normalizeScenario(workloadScenario(4_000), 'bench-workload');
    const { events, verdict } = runScenario(scenario);
    const { verdict: b, peakOwners } = bounded(events, 10_000_000);
    expect(verdict.lostLocks.length).toBeGreaterThan(0);
    expect(verdict.doubleOwnership.length).toBeGreaterThan(0);
    const cycles = events.filter((e) => e.kind === 'acquire.ok').length;
    expect(cycles).toBe(4_000);
    // A cycle takes about 32 ms, so 10 s holds some 320 of them, plus those still open.
    expect(peakOwners).toBeLessThan(600);
    for (const list of ['doubleOwnership', 'staleWrites', 'lostLocks', 'refusedHolders', 'unprotectedWrites'] as const)
      expect(b[list], list).toEqual(verdict[list]);
    expect(b.outcome).toBe(verdict.outcome);
    expect(b.availability.map((a) => [a.client, a.waitedUs, a.lockOutUs, a.workedUs, a.workWithoutLockUs])).toEqual(
      verdict.availability.map((a) => [a.client, a.waitedUs, a.lockOutUs, a.workedUs, a.workWithoutLockUs]),
    );
  });

  it('lists the first spans of lock-out of each client and counts the rest, with the total time exact', () => {
    const scenario = normalizeScenario(workloadScenario(4_000), 'bench-workload');
    const { events } = runScenario(scenario);
    const verdict = everySpan(events);
    const b = bounded(events, boundedFor(scenario.network.latencyMaxMs).forgetAfterUs!).verdict;
    const heavy = verdict.availability.filter((a) => a.lockOut.length > SPANS_KEPT);
    expect(heavy.length).toBeGreaterThan(0);
    for (const a of verdict.availability) {
      const mine = b.availability.find((x) => x.client === a.client)!;
      expect(mine.lockOut).toEqual(a.lockOut.slice(0, SPANS_KEPT));
      expect(mine.lockOutOmitted ?? 0).toBe(Math.max(0, a.lockOut.length - SPANS_KEPT));
      expect(mine.lockOutUs).toBe(a.lockOutUs);
      if (mine.lockOutOmitted === undefined) expect(mine.lockOutByWhy).toBeUndefined();
      else {
        // What every span adds up to, by why and holder, though only the first are listed.
        expect(mine.lockOutByWhy).toEqual(lockOutShares(a.lockOut));
        expect(mine.lockOutByWhy!.reduce((n, x) => n + x.us, 0)).toBe(a.lockOutUs);
      }
    }
    expect(verdict.availability.every((a) => a.lockOutOmitted === undefined && a.lockOutByWhy === undefined)).toBe(true);
    // So the sentences say the same of the cut verdict as of the whole one.
    expect(summarize(b)).toEqual(summarize(verdict));
  });

  it('judges the waiters whose lists are full together, to the microsecond and the span of judging each alone', () => {
    // With no spans listed every waiter is judged with its key's others from its first stretch in use; with one, after its first span.
    const sameLockOut = (events: readonly TraceEvent[], whole: Verdict, listed: number): number => {
      const c = new Checker({ forgetAfterUs: 600_000_000, spansListed: listed });
      for (const e of events) c.push(e);
      const b = c.finish();
      let counted = 0;
      for (const a of whole.availability) {
        const mine = b.availability.find((x) => x.client === a.client)!;
        expect(mine.lockOut).toEqual(a.lockOut.slice(0, listed));
        expect(mine.lockOutOmitted ?? 0).toBe(Math.max(0, a.lockOut.length - listed));
        expect(mine.lockOutUs).toBe(a.lockOutUs);
        expect(mine.waitedUs).toBe(a.waitedUs);
        if (a.lockOut.length > listed) expect(mine.lockOutByWhy).toEqual(lockOutShares(a.lockOut));
        counted += Math.max(0, a.lockOut.length - listed);
      }
      return counted;
    };
    let counted = 0;
    // Each client on one of two keys, so that a run may have two pools, or waiters on a key with none.
    const twoKeys = fc.tuple(randomScenario, fc.array(fc.boolean(), { minLength: 4, maxLength: 4 })).map(([doc, onOther]) => ({
      ...doc,
      clients: (doc.clients as Array<Record<string, unknown>>).map((c, i) => (onOther[i] === true ? { ...c, key: 'other' } : c)),
    }));
    fc.assert(
      fc.property(fc.oneof(randomScenario, twoKeys), (doc) => {
        const { events } = runScenario(normalized(doc));
        const verdict = everySpan(events);
        counted += sameLockOut(events, verdict, 0) + sameLockOut(events, verdict, 1);
      }),
      { numRuns: 400, seed: 29 },
    );
    expect(counted).toBeGreaterThan(300);
    // And a contended lock: 50 waiters, most of whose spans are counted together.
    const { events } = runScenario(normalizeScenario(workloadScenario(1_000), 'bench-workload'));
    const verdict = everySpan(events);
    expect(sameLockOut(events, verdict, 0)).toBeGreaterThan(10_000);
    expect(sameLockOut(events, verdict, 3)).toBeGreaterThan(10_000);
  });

  it('lists the first findings of each kind and counts the rest, and calls the outcome from all of them', () => {
    const lists = ['doubleOwnership', 'staleWrites', 'lostLocks', 'refusedHolders', 'unprotectedWrites'] as const;
    let cut = 0;
    fc.assert(
      fc.property(randomScenario, (doc) => {
        const { events, verdict } = runScenario(normalized(doc));
        const c = new Checker({ forgetAfterUs: 600_000_000, findingsListed: 1, spansListed: 1 });
        for (const e of events) c.push(e);
        const b = c.finish();
        expect(b.outcome).toBe(verdict.outcome);
        for (const list of lists) {
          expect(b[list]).toEqual(verdict[list].slice(0, 1));
          expect(b.omitted?.[list] ?? 0).toBe(Math.max(0, verdict[list].length - 1));
          if (verdict[list].length > 1) cut++;
        }
        expect(b.omitted === undefined).toBe(lists.every((l) => verdict[l].length <= 1));
        for (const a of verdict.availability) {
          const mine = b.availability.find((x) => x.client === a.client)!;
          expect(mine.workWithoutLock).toEqual(a.workWithoutLock.slice(0, 1));
          expect(mine.workWithoutLockOmitted ?? 0).toBe(Math.max(0, a.workWithoutLock.length - 1));
          expect(mine.workWithoutLockUs).toBe(a.workWithoutLockUs);
        }
      }),
      { numRuns: 300, seed: 23 },
    );
    // The property saw lists longer than one, or it proved nothing.
    expect(cut).toBeGreaterThan(20);
  });
});

describe('a trace judged whole', () => {
  it('lists every span of lock-out with a holder, and the spans of a free key while the list is short; the totals cover them all', () => {
    // The bench workload, with three clients crashing late, each just after a grant: the others get a span with the holder gone, after hundreds of free ones.
    const doc = workloadScenario(2_000);
    const faults: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 3; i++) {
      // Each crash changes what comes after it, so the next grant is looked for in the run with the crashes so far.
      const so = runScenario(normalizeScenario({ ...doc, faults }, 'bench-workload')).events;
      const grant = so.find((e) => e.kind === 'acquire.ok' && e.actor === `c${i}` && e.timeUs > 30_000_000 + i * 5_000_000)!;
      faults.push({ kind: 'crash', target: `c${i}`, atMs: Math.ceil(grant.timeUs / 1000) });
    }
    const scenario = normalizeScenario({ ...doc, faults }, 'bench-workload-crashes');
    const { events, verdict } = runScenario(scenario);
    const whole = everySpan(events);
    let lateHeld = 0;
    let omitted = 0;
    for (const a of whole.availability) {
      const mine = verdict.availability.find((x) => x.client === a.client)!;
      const listed: typeof a.lockOut = [];
      for (const span of a.lockOut) if (span.why !== 'free' || listed.length < SPANS_KEPT) listed.push(span);
      expect(mine.lockOut, a.client).toEqual(listed);
      lateHeld += listed.slice(SPANS_KEPT).length;
      expect(mine.lockOutOmitted ?? 0).toBe(a.lockOut.length - listed.length);
      omitted += a.lockOut.length - listed.length;
      expect(mine.lockOutUs).toBe(a.lockOutUs);
      expect(mine.lockOutByWhy).toEqual(a.lockOut.length > listed.length ? lockOutShares(a.lockOut) : undefined);
      expect([mine.waitedUs, mine.workedUs, mine.workWithoutLock]).toEqual([a.waitedUs, a.workedUs, a.workWithoutLock]);
    }
    // The crashes did leave spans with a holder past the first hundred, and most free spans went uncounted in the lists.
    expect(lateHeld).toBeGreaterThan(100);
    expect(omitted).toBeGreaterThan(50_000);
    expect(verdict.doubleOwnership).toEqual(whole.doubleOwnership);
    // Cut as a JSON Lines trace's last line cuts it, it is what a judgement in bounded memory lists.
    const job = runJob(scenario, scenario.seed, { hash: false, bounded: true });
    expect(JSON.stringify(capVerdict(verdict).availability)).toBe(JSON.stringify(job.verdict.availability));
  });
});

describe('a verdict judged in bounded memory, as the command prints it', () => {
  it('counts what was omitted in its totals and says how many more were counted than listed', () => {
    const { verdict } = runScenario(normalizeScenario(workloadScenario(400), 'bench-workload'));
    const lost = verdict.lostLocks.length;
    expect(lost).toBeGreaterThan(0);
    const text = formatVerdict({ verdict: { ...verdict, omitted: { lostLocks: 12_345 } } }, createColors(false));
    expect(text).toContain(`${lost + 12_345} lost locks`);
    expect(text).toContain(`each list names its first 1,000; 12,345 lost locks more were counted, not listed.`);
    expect(formatVerdict({ verdict }, createColors(false))).not.toContain('bounded memory');
  });

  it('shows the first sentences of each kind and says how many more it left out, the outcome last', () => {
    const { verdict } = runScenario(normalizeScenario(workloadScenario(2_000), 'bench-workload'));
    const said = sentences(verdict);
    expect(said.doubleOwnership.length).toBeGreaterThan(SENTENCES_SHOWN);
    const lines = formatVerdict({ verdict }, createColors(false)).split('\n');
    const bullets = lines.filter((l) => l.startsWith('  • ')).map((l) => l.slice(4));
    expect(bullets).toEqual([
      ...said.doubleOwnership.slice(0, SENTENCES_SHOWN),
      ...said.lostLocks.slice(0, SENTENCES_SHOWN),
      ...said.availability.slice(0, SENTENCES_SHOWN),
      ...said.outcome,
    ]);
    expect(lines).toContain(`  … and ${said.doubleOwnership.length - SENTENCES_SHOWN} more windows of double ownership (--json lists them all)`);
    expect(lines).toContain(
      `  … and ${said.availability.length - SENTENCES_SHOWN} more sentences on waiting and on work without the lock (--json lists them all)`,
    );
    expect(lines.at(-1)).toContain(`${verdict.doubleOwnership.length} double-ownership windows`);
    // A verdict with few findings is printed whole, as before.
    const small = runScenario(normalizeScenario(BUILTIN_SCENARIOS['pause-past-expiry'], 'p')).verdict;
    const text = formatVerdict({ verdict: small }, createColors(false));
    expect(text).not.toContain('more ');
    expect(
      text
        .split('\n')
        .filter((l) => l.startsWith('  • '))
        .map((l) => l.slice(4)),
    ).toEqual(summarize(small));
  });
});
