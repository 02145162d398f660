import { describe, expect, it } from 'vitest';
import { BUILTIN_NAMES, BUILTIN_SCENARIOS, normalizeScenario, runScenario } from '../../sim/index.js';
import { annotate } from '../../web/model/annotate.js';
import { buildModel } from '../../web/model/build.js';
import { findingsOf } from '../../web/model/findings.js';

/* The lab's findings adapter, under Node: each finding on the event it is about, in words. */

const run = (name: string, sets: Record<string, unknown> = {}) => {
  const s = normalizeScenario(BUILTIN_SCENARIOS[name], name);
  return runScenario({ ...s, resource: { ...s.resource, ...sets } });
};

describe('findingsOf', () => {
  it('findingsOf(pause-past-expiry) marks the loss, the window and the stale write on their events', () => {
    const doc = run('pause-past-expiry');
    const f = findingsOf(doc, buildModel(doc));
    expect(f.map((x) => [x.kind, x.seq, doc.events[x.seq]!.kind])).toEqual([
      ['lost-lock', 13, 'lock.expired'],
      ['double-ownership', 16, 'acquire.ok'],
      ['stale-accepted', 27, 'write.accepted'],
    ]);
    expect(f[2]!.sentence).toBe("stale write accepted: A's lease ended 6 s ago, and B has since held token 34");
    // The window's events: where each belief began, and where it closed.
    expect(f[1]!.seqs.map((q) => doc.events[q]!.kind)).toEqual(['acquire.ok', 'acquire.ok', 'release.request']);
  });

  it('findingsOf with fencing on says the rejection as the comparison the resource made', () => {
    const doc = run('pause-past-expiry', { fencing: true });
    const stale = findingsOf(doc, buildModel(doc)).find((x) => x.kind === 'stale-rejected')!;
    expect(stale.severity).toBe('fenced');
    expect(stale.sentence).toBe("stale write rejected by fencing: token 33 < 34; A's lease ended 6 s ago");
  });

  it('findingsOf names a write with no token as such', () => {
    const doc = run('sql-clock-skew');
    const stale = findingsOf(doc, buildModel(doc)).find((x) => x.kind === 'stale-accepted')!;
    expect(stale.detail).toBe("A's lease ended 2 s ago, and B has since held the lock; the write carried no fencing token to check");
  });

  it('every finding of every built-in scenario sits on an event of the trace, at the finding’s time', () => {
    for (const name of BUILTIN_NAMES) {
      const doc = run(name);
      const model = buildModel(doc);
      const a = annotate(doc, model);
      const v = doc.verdict;
      expect(a.findings.length, name).toBe(v.staleWrites.length + v.doubleOwnership.length + v.lostLocks.length + v.refusedHolders.length);
      for (const f of a.findings) {
        const e = doc.events[f.seq];
        expect(e, `${name} ${f.id}`).toBeDefined();
        expect(e!.timeUs, `${name} ${f.id}`).toBe(f.atUs);
      }
      expect([...a.flagged]).toEqual([...a.flagged].sort((x, y) => x - y));
    }
  });
});
