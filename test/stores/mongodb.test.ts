import { describe, expect, it } from 'vitest';
import { InputError } from '../../sim/errors.js';
import { runScenario } from '../../sim/run.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { MONGODB } from '../../sim/stores/mongodb.js';
import { extend, release, TableHarness, take } from '../support/sql-harness.js';

const S = 1_000_000;

function refusal(doc: unknown): string {
  try {
    normalizeScenario(doc, 'test');
  } catch (e) {
    if (e instanceof InputError) return e.message;
    throw e;
  }
  throw new Error('the scenario was accepted');
}

describe('MongoDB model (STORES.md: client-computed expires_at, takeover by the acquiring client clock, TTL monitor)', () => {
  it("computes expires_at from the writing client's clock, in milliseconds", () => {
    const t = TableHarness.mongo({ app2OffsetUs: 6 * S, dbOffsetUs: -3 * S });
    t.at(1.5 * S, 'B', 'app2', take('B:1', 10 * S));
    expect(t.node.row('job')).toMatchObject({ owner: 'B:1', expires: 17_500 });
  });

  it('refuses a second owner while expires_at is after its own clock', () => {
    const t = TableHarness.mongo();
    t.at(0, 'A', 'app1', take('A:1', 10 * S));
    expect(t.at(9.9 * S, 'B', 'app2', take('B:1', 10 * S))).toEqual({ ok: false, holder: 'A:1' });
  });

  it("takes over when expires_at <= now by the acquiring client's clock: a client 6 s ahead gets in 6 s early", () => {
    const t = TableHarness.mongo({ app2OffsetUs: 6 * S });
    t.at(0, 'A', 'app1', take('A:1', 10 * S));
    expect(t.at(3.999 * S, 'B', 'app2', take('B:1', 10 * S)).ok).toBe(false);
    expect(t.at(4 * S, 'B', 'app2', take('B:1', 10 * S)).ok).toBe(true);
    expect(t.kinds()).toEqual(['0 lock.granted A:1', `${4 * S} lock.expired A:1`, `${4 * S} lock.granted B:1`]);
  });

  it('takeover does not wait for the TTL monitor, which deletes expired documents only on its passes, about every 60 s', () => {
    const t = TableHarness.mongo();
    t.at(0, 'A', 'app1', take('A:1', 5 * S));
    t.advance(30 * S);
    // Expired at 5 s by A's clock, but the document is still there.
    expect(t.kinds()).toEqual(['0 lock.granted A:1', `${5 * S} lock.expired A:1`]);
    expect(t.node.row('job')).toBeDefined();
    expect(t.at(30 * S, 'B', 'app2', take('B:1', 40 * S)).ok).toBe(true);
    t.advance(130 * S);
    // The pass at 60 s finds B's document unexpired (it expires at 70 s); the pass at 120 s deletes it.
    const monitor = t.world.trace.events.filter((e) => e.kind === 'ttl.monitor').map((e) => e.timeUs);
    expect(monitor).toEqual([120 * S]);
    expect(t.node.row('job')).toBeUndefined();
  });

  it("the TTL monitor goes by the server's clock: a server running ahead deletes a document before its writer's clock passes expires_at", () => {
    const t = TableHarness.mongo({ dbOffsetUs: 30 * S });
    // expires_at is 65 s by A's clock; the server's clock reads 90 s at the pass at 60 s.
    t.at(10 * S, 'A', 'app1', take('A:1', 55 * S));
    t.advance(61 * S);
    expect(t.kinds()).toEqual([`${10 * S} lock.granted A:1`, `${60 * S} lock.expired A:1`, `${60 * S} ttl.monitor`]);
    expect(t.world.trace.events[1]!.reason).toContain('the TTL monitor deleted the document');
  });

  it('refreshes with the same upsert: it extends our document, and re-inserts it once the monitor has deleted it', () => {
    const t = TableHarness.mongo();
    t.at(0, 'A', 'app1', take('A:1', 5 * S));
    expect(t.at(2 * S, 'A', 'app1', extend('A:1', 5 * S))).toEqual({ ok: true });
    expect(t.node.row('job')!.expires).toBe(7_000);
    t.advance(61 * S);
    expect(t.node.row('job')).toBeUndefined();
    expect(t.at(61 * S, 'A', 'app1', extend('A:1', 5 * S))).toEqual({ ok: true });
    expect(t.kinds().slice(-1)).toEqual([`${61 * S} lock.granted A:1`]);
  });

  it('a refresh fails with a duplicate key once someone else holds an unexpired document', () => {
    const t = TableHarness.mongo();
    t.at(0, 'A', 'app1', take('A:1', 2 * S));
    t.at(3 * S, 'B', 'app2', take('B:1', 10 * S));
    expect(t.at(4 * S, 'A', 'app1', extend('A:1', 2 * S))).toEqual({ ok: false, holder: 'B:1' });
  });

  it('deletes only its own document', () => {
    const t = TableHarness.mongo();
    t.at(0, 'A', 'app1', take('A:1', 10 * S));
    expect(t.at(S, 'B', 'app2', release('B:1')).ok).toBe(false);
    expect(t.at(2 * S, 'A', 'app1', release('A:1')).ok).toBe(true);
    expect(t.kinds()).toEqual(['0 lock.granted A:1', `${2 * S} lock.released A:1`]);
  });

  it('issues no fencing token, cannot block and cannot share (a read lock is an ordinary one)', () => {
    expect(MONGODB.capabilities).toMatchObject({ scope: 'remote', blocking: false, expiring: true, sharing: false, fencingToken: null });
    const base = { name: 'x', machines: [{ name: 'm' }], store: { kind: 'mongodb', machine: 'm' } };
    expect(() => normalizeScenario({ ...base, clients: [{ name: 'A', machine: 'm', writes: 0, acquire: { shared: true } }] }, 'x')).not.toThrow();
    expect(refusal({ ...base, clients: [{ name: 'A', machine: 'm', acquire: { method: 'exists-then-set' } }] })).toMatch(/clients\[0\]\.acquire\.method/);
  });

  it('accepts sub-second TTLs (expires_at has millisecond precision) and a full run with them is safe', () => {
    const s = normalizeScenario(
      {
        name: 'x',
        machines: [{ name: 'app1' }, { name: 'db' }],
        store: { kind: 'mongodb', machine: 'db' },
        clients: [{ name: 'A', machine: 'app1', ttlMs: 500, workMs: 100 }],
      },
      'test',
    );
    const doc = runScenario(s, 1);
    expect(doc.verdict.outcome).toBe('safe');
    expect(doc.stop.reason).toBe('completed');
    // The run ends with the work: the monitor does not keep an empty collection alive.
    expect(doc.stop.timeUs).toBeLessThan(S);
  });

  it('refuses a TTL monitor interval under 1 s and an unknown machine', () => {
    const clients = [{ name: 'A', machine: 'm' }];
    expect(refusal({ name: 'x', machines: [{ name: 'm' }], store: { kind: 'mongodb', machine: 'm', ttlMonitorSec: 0 }, clients })).toMatch(/store/);
    expect(refusal({ name: 'x', machines: [{ name: 'm' }], store: { kind: 'mongodb', machine: 'db' }, clients })).toMatch(
      /store\.machine: no machine named "db"/,
    );
  });
});
