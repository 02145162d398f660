import { describe, expect, it } from 'vitest';
import { POLL_INTERVAL_US, POLL_JITTER_US } from '../sim/clients/lifecycle.js';
import { runScenario } from '../sim/run.js';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import { BUILTIN_SCENARIOS } from '../sim/scenarios/index.js';
import type { TraceDocument } from '../sim/trace/types.js';

const MS = 1000;

function run(clients: unknown[], faults: unknown[] = [], seed = 1): TraceDocument {
  return runScenario(
    normalizeScenario(
      { name: 'lifecycle', machines: [{ name: 'app1' }, { name: 'app2' }, { name: 'db' }], store: { kind: 'redis', machine: 'db' }, clients, faults },
      'lifecycle',
    ),
    seed,
  );
}

const times = (doc: TraceDocument, actor: string, kind: string): number[] =>
  doc.events.filter((e) => e.actor === actor && e.kind === kind).map((e) => e.timeUs);

describe('the client lifecycle', () => {
  it('a release() that throws is not recorded as a skipped release: it was the release, tried and failed', () => {
    const builtin = (name: string) => runScenario(normalizeScenario(BUILTIN_SCENARIOS[name], name));
    // PostgreSQL's connection is gone when A releases: LockReleasingException, and nothing skipped.
    const lost = builtin('postgres-connection-loss')
      .events.filter((e) => e.actor === 'A')
      .map((e) => e.kind);
    expect(lost).toContain('exception.releasing');
    expect(lost).not.toContain('release.skipped');
    // An exception inside the critical section, with no finally, still skips the release, and says so.
    expect(
      builtin('finally-after-exception')
        .events.filter((e) => e.kind === 'release.skipped')
        .map((e) => e.actor),
    ).toEqual(['A']);
  });

  it('a blocking acquire on a store that cannot block polls about every 100 ms, ±10 ms, deterministically', () => {
    const clients = [
      { name: 'A', machine: 'app1', ttlMs: 10_000, workMs: 2000 },
      { name: 'B', machine: 'app2', startMs: 10, acquire: { mode: 'blocking' } },
    ];
    const doc = run(clients);
    const asks = times(doc, 'B', 'acquire.request');
    expect(asks.length).toBeGreaterThan(15);
    const gaps = asks.slice(1).map((t, i) => t - asks[i]!);
    // Each gap is a round trip (1 to 4 ms here) plus the jittered poll interval.
    for (const g of gaps) {
      expect(g).toBeGreaterThanOrEqual(POLL_INTERVAL_US - POLL_JITTER_US + 1 * MS);
      expect(g).toBeLessThanOrEqual(POLL_INTERVAL_US + POLL_JITTER_US + 4 * MS);
    }
    expect(new Set(gaps).size).toBeGreaterThan(1);
    expect(times(run(clients), 'B', 'acquire.request')).toEqual(asks);
    // B gets the lock on the first poll after A's release.
    const released = doc.events.find((e) => e.kind === 'lock.released' && e.owner === 'A:1')!;
    const granted = doc.events.find((e) => e.kind === 'lock.granted' && e.owner === 'B:1')!;
    expect(granted.timeUs - released.timeUs).toBeLessThan(POLL_INTERVAL_US + POLL_JITTER_US + 4 * MS);
  });

  it('a blocking acquire with waitTimeoutMs gives up when the wait runs out', () => {
    const doc = run([
      { name: 'A', machine: 'app1', ttlMs: 10_000, workMs: 5000 },
      { name: 'B', machine: 'app2', startMs: 10, acquire: { mode: 'blocking', waitTimeoutMs: 1000 } },
    ]);
    const giveup = doc.events.find((e) => e.kind === 'acquire.giveup' && e.actor === 'B')!;
    expect(giveup.timeUs).toBeGreaterThanOrEqual(1000 * MS);
    expect(giveup.timeUs).toBeLessThan(1200 * MS);
  });

  it('try mode makes one attempt plus `retries`, retryDelayMs apart, then gives up', () => {
    const doc = run([
      { name: 'A', machine: 'app1', ttlMs: 10_000, workMs: 5000 },
      { name: 'B', machine: 'app2', startMs: 10, acquire: { retries: 3, retryDelayMs: 500 } },
    ]);
    const asks = times(doc, 'B', 'acquire.request');
    expect(asks).toHaveLength(4);
    for (let i = 1; i < asks.length; i++) expect(asks[i]! - asks[i - 1]!).toBeGreaterThanOrEqual(500 * MS);
    expect(doc.events.find((e) => e.kind === 'acquire.giveup')).toMatchObject({ actor: 'B', data: { attempts: 4 } });
  });

  it('refreshing keeps the lock past its TTL; without refresh it expires under the worker', () => {
    const worker = { name: 'A', machine: 'app1', ttlMs: 1000, workMs: 3000 };
    const refreshed = run([{ ...worker, refreshEveryMs: 400 }]);
    expect(times(refreshed, 'redis', 'lock.refreshed').length).toBeGreaterThanOrEqual(7);
    expect(refreshed.events.some((e) => e.kind === 'lock.expired')).toBe(false);
    const plain = run([worker]);
    expect(plain.verdict.lostLocks).toMatchObject([{ client: 'A', how: 'expired' }]);
  });

  it('a failed refresh ends the belief and still releases in the finally', () => {
    const doc = run(
      [{ name: 'A', machine: 'app1', ttlMs: 1000, workMs: 3000, refreshEveryMs: 500 }],
      [{ kind: 'pause', target: 'A', atMs: 200, durationMs: 1500 }],
    );
    const failed = doc.events.find((e) => e.kind === 'refresh.failed')!;
    expect(failed.believes).toEqual({ holds: false });
    expect(doc.events.filter((e) => e.actor === 'A' && e.kind === 'write.request')).toEqual([]);
    expect(times(doc, 'A', 'release.request').length).toBe(1);
  });

  it('without a finally, an error skips the release and the key waits out its TTL', () => {
    const doc = run([{ name: 'A', machine: 'app1', ttlMs: 2000, workMs: 3000, checkRemaining: true, release: { inFinally: false } }]);
    expect(doc.events.find((e) => e.kind === 'release.skipped')).toMatchObject({ actor: 'A', reason: 'lease expired by the client clock' });
    expect(doc.events.some((e) => e.kind === 'release.request')).toBe(false);
    expect(doc.events.find((e) => e.kind === 'lock.expired')).toMatchObject({ owner: 'A:1' });
  });

  it('iterations take the lock again with a new owner token each time', () => {
    const doc = run([{ name: 'A', machine: 'app1', ttlMs: 1000, workMs: 10, iterations: 3, thinkMs: 50 }]);
    expect(doc.events.filter((e) => e.kind === 'lock.granted').map((e) => [e.owner, e.fence])).toEqual([
      ['A:1', 1],
      ['A:2', 2],
      ['A:3', 3],
    ]);
  });

  it('a paused client keeps believing: its lease runs out by its own clock while it sleeps', () => {
    const doc = run([{ name: 'A', machine: 'app1', ttlMs: 1000, workMs: 500 }], [{ kind: 'pause', target: 'A', atMs: 100, durationMs: 2000 }]);
    const resumed = doc.events.find((e) => e.kind === 'process.resume')!;
    expect(resumed.believes).toMatchObject({ holds: true, owner: 'A:1' });
    expect(resumed.believes!.ttlLeftUs).toBeLessThan(0);
  });
});
