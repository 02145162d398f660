import { describe, expect, it } from 'vitest';
import { BUILTIN_SCENARIOS, normalizeScenario, runScenario } from '../../sim/index.js';
import { buildLink, EMPTY_LINK, parseLink } from '../../web/links/permalink.js';
import { buildModel } from '../../web/model/build.js';
import { firstDivergenceUs } from '../../web/model/diverge.js';
import { visibleMarks, visibleSpans } from '../../web/model/lod.js';
import { clientViewAt, localAt } from '../../web/model/state-at.js';
import { bandLabel } from '../../web/timeline/marks/faults.js';

/* The lab's pure parts, under Node: what the timeline draws and what a link holds. */

const run = (name: string, seed: number, fencing = false) => {
  const s = normalizeScenario(BUILTIN_SCENARIOS[name], name);
  return runScenario({ ...s, resource: { ...s.resource, fencing } }, seed);
};

describe('buildModel', () => {
  it('buildModel(pause-past-expiry) has A believing past the store’s expiry, and B’s holding after it', () => {
    const doc = run('pause-past-expiry', 7);
    const m = buildModel(doc);
    const a = m.clients.find((c) => c.name === 'A')!;
    expect(a.belief).toHaveLength(1);
    const at = (kind: string, owner: string): number => doc.events.find((e) => e.kind === kind && e.owner === owner)!.timeUs;
    expect(a.belief[0]).toMatchObject({ fromUs: at('acquire.ok', 'A:1'), label: 'A:1 #33' });
    expect(a.truth).toHaveLength(1);
    expect(a.truth[0]).toMatchObject({ fromUs: at('lock.granted', 'A:1'), toUs: at('lock.expired', 'A:1'), end: 'lock.expired' });
    expect(a.belief[0]!.toUs).toBeGreaterThan(a.truth[0]!.toUs);
    expect(a.pauses[0]).toMatchObject({ fromUs: 1_000_000, toUs: 16_000_000, end: 'process.resume' });
    expect(m.resource.writes.map((w) => [w.fence, w.accepted, w.stale])).toEqual([
      [34, true, false],
      [33, true, true],
    ]);
    expect(m.doubleOwnership).toHaveLength(1);
    expect(m.arrows.every((x) => x.hops.length >= 2)).toBe(true);
  });

  it('buildModel(redlock-clock-jump) keeps each partition with its groups, for the lanes it cuts off', () => {
    const doc = run('redlock-clock-jump', 3);
    const m = buildModel(doc);
    const starts = doc.events.filter((e) => e.kind === 'partition.start');
    expect(m.partitions.map((p) => [p.fromUs, p.groups])).toEqual([
      [starts[0]!.timeUs, [['app1'], ['hostD', 'hostE']]],
      [starts[1]!.timeUs, [['app2'], ['hostA', 'hostB']]],
    ]);
    for (const p of m.partitions) expect(p.toUs).toBeGreaterThan(p.fromUs);
  });

  it('buildModel(redlock-clock-jump) keeps each message the partition dropped, with the lane it was meant for', () => {
    const m = buildModel(run('redlock-clock-jump', 3));
    const lost = m.arrows.filter((a) => a.lost !== undefined);
    expect(lost.map((a) => [a.hops[0]!.lane, a.lost!.toLane])).toEqual([
      ['client:client1', 'store:D'],
      ['client:client1', 'store:E'],
      ['client:client2', 'store:A'],
      ['client:client2', 'store:B'],
    ]);
  });

  it('buildModel(exists-then-set-race) ends an overwritten holding on the holder it belonged to', () => {
    const m = buildModel(run('exists-then-set-race', 11));
    const overwritten = m.clients.flatMap((c) => c.truth.map((t) => ({ client: c.name, ...t }))).filter((t) => t.end === 'lock.overwritten');
    expect(overwritten.length).toBeGreaterThan(0);
    for (const t of overwritten) expect(t.label.startsWith(`${t.client}:`)).toBe(true);
  });

  it('clientViewAt reads the TTL left by the client’s own clock at the playhead', () => {
    const doc = run('pause-past-expiry', 7);
    const m = buildModel(doc);
    const a = m.clients.find((c) => c.name === 'A')!;
    const atStale = doc.events.findIndex((e) => e.kind === 'write.accepted' && e.owner === 'A:1');
    const v = clientViewAt(doc, m, a, atStale, doc.events[atStale]!.timeUs);
    expect(v.belief?.holds).toBe(true);
    expect(v.truth).toBeNull();
    // A asked at 0 for 10 s, by a clock in step with true time.
    expect(v.ttlLeftUs).toBe(10_000_000 - doc.events[atStale]!.timeUs);
    expect(v.ttlLeftUs).toBeLessThan(-6_000_000);
  });

  it('localAt advances a machine clock from its last reading at its drift rate', () => {
    const clock = {
      name: 'm',
      trueUs: Float64Array.from([0, 1_000_000]),
      localUs: Float64Array.from([500, 1_000_500]),
      driftPpm: Float64Array.from([0, 1000]),
    };
    expect(localAt(clock, 500_000)).toBe(500_500);
    expect(localAt(clock, 2_000_000)).toBe(2_001_500);
  });
});

describe('level of detail', () => {
  it('visibleSpans merges spans closer than a pixel and keeps the count', () => {
    const spans = Array.from({ length: 1000 }, (_, i) => ({ fromUs: i * 10, toUs: i * 10 + 8, label: 'x', seq: i, end: 'lock.released' }));
    const drawn = visibleSpans(spans, 0, 10_000, 5);
    expect(drawn).toHaveLength(1);
    expect(drawn[0]!.count).toBe(1000);
    expect(visibleSpans(spans, 0, 10_000, 1)).toHaveLength(1000);
  });

  it('visibleSpans keeps two wide spans that touch apart (a takeover), and merges spans that overlap', () => {
    const span = (fromUs: number, toUs: number, seq: number) => ({ fromUs, toUs, label: String(seq), seq, end: 'lock.expired' });
    expect(visibleSpans([span(0, 5000, 0), span(5000, 9000, 1)], 0, 10_000, 10).map((d) => d.first.label)).toEqual(['0', '1']);
    expect(visibleSpans([span(0, 5000, 0), span(4000, 9000, 1)], 0, 10_000, 10).map((d) => d.count)).toEqual([2]);
    expect(visibleSpans([span(0, 5000, 0), span(5000, 5010, 1)], 0, 10_000, 10).map((d) => d.count)).toEqual([2]);
  });

  it('visibleMarks buckets marks and keeps the highest-ranked one', () => {
    const marks = [0, 1, 2, 50].map((atUs, seq) => ({ atUs, seq, kind: 'k', label: String(seq) }));
    const drawn = visibleMarks(marks, 0, 100, 10, (m) => (m.seq === 1 ? 5 : 0));
    expect(drawn.map((d) => [d.count, d.mark.seq])).toEqual([
      [3, 1],
      [1, 3],
    ]);
  });
});

describe('firstDivergenceUs', () => {
  it('firstDivergenceUs is null for the same run and the stale write’s time for fencing off versus on', () => {
    const off = run('pause-past-expiry', 7);
    expect(firstDivergenceUs(off.events, run('pause-past-expiry', 7).events)).toBeNull();
    const on = run('pause-past-expiry', 7, true);
    const staleWrite = off.events.find((e) => e.kind === 'write.accepted' && e.owner === 'A:1')!;
    expect(firstDivergenceUs(off.events, on.events)).toBe(staleWrite.timeUs);
  });
});

describe('permalinks', () => {
  it('buildLink then parseLink gives back the same state, built-in or packed scenario', async () => {
    const state = {
      ...EMPTY_LINK,
      view: 'compare' as const,
      scenario: { builtin: 'pause-past-expiry' },
      seed: 7,
      overrides: ['resource.fencing=true'],
      cursor: 12,
      domain: [1000, 90000] as [number, number],
      arrows: true,
      compare: { overrides: ['clients.A.ttlMs=20000'], seed: null },
    };
    expect(await parseLink(await buildLink(state))).toEqual({ ok: true, state });
    const packed = { ...EMPTY_LINK, scenario: { raw: BUILTIN_SCENARIOS['release-by-plain-del'] }, seed: 5, code: true };
    expect(await buildLink(packed)).toContain('&code=1');
    expect(await parseLink(await buildLink(packed))).toEqual({ ok: true, state: packed });
  });

  it("carries the Odds view's form: each varied field as `locklab sweep --vary` takes it, and the runs, only on the Odds view", async () => {
    const odds = {
      ...EMPTY_LINK,
      view: 'odds' as const,
      scenario: { builtin: 'random-gc-pauses' },
      odds: { vary: ['clients[*].ttlMs=10000,30000', 'resource.fencing=false,true'], runs: 200 },
    };
    expect(await parseLink(await buildLink(odds))).toEqual({ ok: true, state: odds });
    expect(await parseLink('#/lab?s=pause-past-expiry&vary=x%3D1&runs=5')).toEqual({
      ok: true,
      state: { ...EMPTY_LINK, scenario: { builtin: 'pause-past-expiry' } },
    });
    const bad = await parseLink('#/odds?vary=a%3D1&vary=b%3D2&vary=c&runs=x');
    expect(bad.ok === false && bad.issues.map((i) => i.path).sort()).toEqual(['runs', 's', 'vary', 'vary']);
  });

  it('parseLink names the parameter of each thing it cannot read', async () => {
    const bad = await parseLink('#/nowhere?s=a&sc=b&t=x&z=9-3');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.issues.map((i) => i.path).sort()).toEqual(['s', 't', 'view', 'z']);
    const long = await parseLink(`#/lab?s=${'x'.repeat(9000)}`);
    expect(long.ok === false && long.issues[0]!.message).toContain('at most 8000');
  });
});

describe('bandLabel', () => {
  const full = 'partition app1 | hostD hostE';
  it('writes the whole label where it fits, the kind alone where only that does, and nothing in a sliver', () => {
    expect(bandLabel(full, 'partition', 0, 400, [])).toEqual({ text: full, x: 3 });
    expect(bandLabel(full, 'partition', 0, 120, [])).toEqual({ text: 'partition', x: 3 });
    expect(bandLabel(full, 'partition', 0, 40, [])).toBeNull();
  });

  it('starts past a glyph at the band’s start and stops before the next glyph on the row', () => {
    // Glyphs before the band are no obstacle; one at its start moves the words; one inside cuts their room.
    expect(bandLabel(full, 'partition', 100, 500, [20, 100])).toEqual({ text: full, x: 111 });
    expect(bandLabel(full, 'partition', 100, 500, [100, 250])!.text).toBe('partition');
    expect(bandLabel(full, 'partition', 100, 500, [100, 150])).toBeNull();
  });
});
