import { describe, expect, it } from 'vitest';
import { soakScenario } from '../bench/soak-scenario.js';
import { runScenario } from '../sim/run.js';
import { explainStaleWrites } from './support/fencing-limits.js';

describe("the soak's scenario (npm run soak)", () => {
  it('pauses a fifth of the 50 clients every 10 s and restarts Redis every minute of the 10-minute soak', () => {
    const s = soakScenario({ minutes: 10, clients: 50 });
    expect(s.clients).toHaveLength(50);
    const pauses = s.faults.filter((f) => f.kind === 'pause');
    expect(pauses).toHaveLength(60 * 10);
    expect(new Set(pauses.filter((f) => f.atMs === 2_500).map((f) => (f as { target: string }).target)).size).toBe(10);
    expect(s.faults.filter((f) => f.kind === 'store-restart')).toHaveLength(9);
    expect(s.store).toMatchObject({ kind: 'redis', persistence: 'aof-always' });
    expect(s.resource.fencing).toBe(true);
  });

  it('stays within a scenario’s limits for the longest and largest soak the command takes', () => {
    const s = soakScenario({ minutes: 30, clients: 100 });
    expect(s.faults.length).toBeLessThanOrEqual(1_000);
    expect(s.budget.maxTimeMs).toBe(30 * 60_000);
  });

  it('simulated for 2 minutes with 10 clients, fences the write of a holder stopped past its lease and lets no stale write through', () => {
    const doc = runScenario(soakScenario({ minutes: 2, clients: 10 }));
    expect(doc.events.filter((e) => e.kind === 'acquire.ok').length).toBeGreaterThan(1_000);
    expect(doc.events.filter((e) => e.kind === 'process.pause')).toHaveLength(24);
    expect(doc.verdict.doubleOwnership.length).toBeGreaterThan(0);
    expect(doc.events.filter((e) => e.kind === 'write.refused').length).toBeGreaterThan(0);
    expect(explainStaleWrites(doc).filter((x) => x.limit === null)).toEqual([]);
    expect(doc.verdict.outcome).toBe('fenced');
  });
});
