import { describe, expect, it } from 'vitest';
import { InputError } from '../../sim/errors.js';
import { runScenario } from '../../sim/run.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { SQL } from '../../sim/stores/sql.js';
import type { TraceDocument } from '../../sim/trace/types.js';
import { extend, release, TableHarness, take } from '../support/sql-harness.js';

const S = 1_000_000;

function run(store: Record<string, unknown>, clients: unknown[], machines: unknown[] = [{ name: 'app1' }, { name: 'app2' }, { name: 'db' }]): TraceDocument {
  return runScenario(normalizeScenario({ name: 'sql-test', machines, store: { kind: 'sql', machine: 'db', ...store }, clients }, 'test'), 1);
}

function refusal(doc: unknown): string {
  try {
    normalizeScenario(doc, 'test');
  } catch (e) {
    if (e instanceof InputError) return e.message;
    throw e;
  }
  throw new Error('the scenario was accepted');
}

describe('SQL lock table model (STORES.md: row per key, takeover of an expired row, whose clock is a parameter)', () => {
  it('keeps one row per key: a second owner is refused while the row has not expired', () => {
    const t = TableHarness.sql('server');
    expect(t.at(0, 'A', 'app1', take('A:1', 10 * S))).toEqual({ ok: true });
    expect(t.at(5 * S, 'B', 'app2', take('B:1', 10 * S))).toEqual({ ok: false, holder: 'A:1' });
    expect(t.node.row('job')).toMatchObject({ owner: 'A:1', expires: 10 });
  });

  it('keeps expires_at in whole seconds: now rounded down plus the TTL rounded up', () => {
    const t = TableHarness.sql('server');
    t.at(2.7 * S, 'A', 'app1', take('A:1', 1.2 * S));
    expect(t.node.row('job')!.expires).toBe(2 + 2);
    t.advance(10 * S);
    expect(t.kinds()).toEqual([`${2.7 * S} lock.granted A:1`, `${4 * S} lock.expired A:1`]);
  });

  it('with the server clock (Symfony), the holding ends when the server clock passes expires_at, and then a new owner takes the row over', () => {
    const t = TableHarness.sql('server', { app2OffsetUs: 6 * S });
    t.at(0, 'A', 'app1', take('A:1', 10 * S));
    // B's clock is 6 s ahead, but the server decides: no early takeover.
    expect(t.at(5 * S, 'B', 'app2', take('B:1', 10 * S)).ok).toBe(false);
    expect(t.at(10 * S, 'B', 'app2', take('B:1', 10 * S)).ok).toBe(true);
    expect(t.kinds()).toEqual(['0 lock.granted A:1', `${10 * S} lock.expired A:1`, `${10 * S} lock.granted B:1`]);
  });

  it("with the client's clock, a client whose clock runs ahead takes the row over early, and the holding ends at that takeover", () => {
    const t = TableHarness.sql('client', { app2OffsetUs: 6 * S });
    t.at(0, 'A', 'app1', take('A:1', 10 * S));
    expect(t.at(3 * S, 'B', 'app2', take('B:1', 10 * S)).ok).toBe(false);
    expect(t.at(5 * S, 'B', 'app2', take('B:1', 10 * S)).ok).toBe(true);
    expect(t.kinds()).toEqual(['0 lock.granted A:1', `${5 * S} lock.expired A:1`, `${5 * S} lock.granted B:1`]);
    expect(t.world.trace.events[1]!.reason).toBe("row taken over by B: expires_at 10 s is not after B's clock (11 s)");
    // B's row is on B's clock: 11 + 10.
    expect(t.node.row('job')).toMatchObject({ owner: 'B:1', expires: 21 });
  });

  it("with the client's clock, a row written by a client whose clock runs ahead ends by that clock, early in true time", () => {
    const t = TableHarness.sql('client', { app2OffsetUs: 6 * S });
    t.at(0, 'B', 'app2', take('B:1', 10 * S));
    t.advance(20 * S);
    expect(t.kinds()).toEqual(['0 lock.granted B:1', `${10 * S} lock.expired B:1`]);
    expect(t.world.trace.events[1]!.reason).toBe("expires_at 16 s passed by app2's clock (which computed it)");
  });

  it('a forward jump of the server clock expires server-clock rows early', () => {
    const t = TableHarness.sql('server');
    t.at(0, 'A', 'app1', take('A:1', 30 * S));
    t.advance(S);
    const db = t.world.machine('db');
    db.clock.jump(t.world.nowUs, 60 * S);
    db.clockChanged();
    t.advance(2 * S);
    expect(t.kinds()).toEqual(['0 lock.granted A:1', `${S} lock.expired A:1`]);
  });

  it('refreshes only the owner\u2019s row, and an UPDATE finds nothing once the row is gone', () => {
    const t = TableHarness.sql('server');
    t.at(0, 'A', 'app1', take('A:1', 3 * S));
    expect(t.at(S, 'B', 'app2', extend('B:1', 3 * S))).toEqual({ ok: false, holder: 'A:1' });
    expect(t.at(2 * S, 'A', 'app1', extend('A:1', 3 * S))).toEqual({ ok: true });
    expect(t.node.row('job')!.expires).toBe(5);
    t.at(3 * S, 'A', 'app1', release('A:1'));
    expect(t.at(4 * S, 'A', 'app1', extend('A:1', 3 * S))).toEqual({ ok: false, holder: null });
  });

  it('deletes only its own row: a release with another token changes nothing', () => {
    const t = TableHarness.sql('server');
    t.at(0, 'A', 'app1', take('A:1', 10 * S));
    expect(t.at(S, 'B', 'app2', release('B:1'))).toEqual({ ok: false, holder: 'A:1' });
    expect(t.at(2 * S, 'A', 'app1', release('A:1'))).toEqual({ ok: true });
    expect(t.kinds()).toEqual(['0 lock.granted A:1', `${2 * S} lock.released A:1`]);
  });

  it('acquiring again with the same token extends the row (the INSERT fails, the UPDATE matches our token)', () => {
    const t = TableHarness.sql('server');
    t.at(0, 'A', 'app1', take('A:1', 5 * S));
    expect(t.at(3 * S, 'A', 'app1', take('A:1', 5 * S))).toEqual({ ok: true });
    expect(t.kinds()).toEqual(['0 lock.granted A:1', `${3 * S} lock.refreshed A:1`]);
  });

  it('a restart keeps the table, and expiry keeps passing while the server is down', () => {
    const t = TableHarness.sql('server');
    t.at(0, 'A', 'app1', take('A:1', 2 * S));
    t.advance(S);
    t.node.restart(5 * S);
    t.advance(7 * S);
    expect(t.kinds()).toEqual(['0 lock.granted A:1', `${S} store.down`, `${2 * S} lock.expired A:1`, `${6 * S} store.up`]);
  });

  it('issues no fencing token, cannot block and cannot share', () => {
    const t = TableHarness.sql('server');
    expect(t.at(0, 'A', 'app1', take('A:1', S)).fence).toBeUndefined();
    expect(SQL.capabilities).toMatchObject({ scope: 'remote', blocking: false, expiring: true, sharing: false, fencingToken: null });
  });

  it('two primaries with asynchronous replication both grant the key, and the replicated rows conflict', () => {
    const doc = run(
      {
        primaries: [
          { name: 'db1', machine: 'db', clients: ['A'] },
          { name: 'db2', machine: 'db2', clients: ['B'] },
        ],
        replicationLagMs: 500,
      },
      [
        { name: 'A', machine: 'app1', ttlMs: 10000, workMs: 1000 },
        { name: 'B', machine: 'app2', startMs: 100, ttlMs: 10000, workMs: 1000 },
      ],
      [{ name: 'app1' }, { name: 'app2' }, { name: 'db' }, { name: 'db2' }],
    );
    const grants = doc.events.filter((e) => e.kind === 'lock.granted').map((e) => `${e.actor} ${e.owner}`);
    expect(grants.slice(0, 2)).toEqual(['db1 A:1', 'db2 B:1']);
    expect(doc.events.filter((e) => e.kind === 'replication.conflict').map((e) => e.actor)).toEqual(['db2', 'db1']);
    expect(doc.verdict.outcome).toBe('unsafe');
    expect(doc.verdict.doubleOwnership).toMatchObject([{ clients: ['A', 'B'] }]);
  });

  it('once a row has replicated, a client on the other primary is refused', () => {
    const doc = run(
      {
        primaries: [
          { name: 'db1', machine: 'db', clients: ['A'] },
          { name: 'db2', machine: 'db2', clients: ['B'] },
        ],
        replicationLagMs: 50,
      },
      [
        { name: 'A', machine: 'app1', ttlMs: 10000, workMs: 1000 },
        { name: 'B', machine: 'app2', startMs: 200, ttlMs: 10000, workMs: 100, acquire: { retries: 20, retryDelayMs: 200 } },
      ],
      [{ name: 'app1' }, { name: 'app2' }, { name: 'db' }, { name: 'db2' }],
    );
    expect(doc.events.find((e) => e.kind === 'acquire.denied' && e.actor === 'B')?.data).toEqual({ holder: 'A:1' });
    expect(doc.verdict.outcome).toBe('safe');
    expect(doc.verdict.doubleOwnership).toEqual([]);
  });

  it('a TTL under 1 s fails at run time, as PdoStore does: the row is written for the initial TTL, then refresh() throws', () => {
    const doc = runScenario(
      normalizeScenario(
        { name: 'x', machines: [{ name: 'm' }], store: { kind: 'sql', machine: 'm' }, clients: [{ name: 'A', machine: 'm', ttlMs: 999 }] },
        'x',
      ),
      1,
    );
    expect(doc.events.find((e) => e.kind === 'acquire.request')).toMatchObject({ ttlUs: 300 * S });
    expect(doc.events.find((e) => e.kind === 'exception.invalid-ttl')).toMatchObject({
      reason: '"PdoStore::putOffExpiration()" expects a TTL greater or equals to 1 second. Got 0.999.',
      data: { thrown: 'LockAcquiringException' },
    });
    // The shorthand's worker loop catches it; the Lock's destructor then finds the row and deletes it.
    expect(doc.events.filter((e) => e.actor === 'A').map((e) => e.kind)).toEqual(
      expect.arrayContaining(['release.skipped', 'autorelease.check', 'isAcquired.yes', 'release.ok']),
    );
  });

  it('refuses a store without a machine, an unknown primary client and a clock it does not know', () => {
    const base = { name: 'x', machines: [{ name: 'm' }], clients: [{ name: 'A', machine: 'm' }] };
    expect(refusal({ ...base, store: { kind: 'sql' } })).toMatch(/store\.machine: the sql store needs a machine/);
    expect(
      refusal({
        ...base,
        store: {
          kind: 'sql',
          primaries: [
            { name: 'p1', machine: 'm', clients: ['Z'] },
            { name: 'p2', machine: 'm' },
          ],
        },
      }),
    ).toMatch(/store\.primaries\[0\]\.clients\[0\]: no client named "Z"/);
    expect(refusal({ ...base, store: { kind: 'sql', machine: 'm', clock: 'ntp' } })).toMatch(/store/);
  });

  it('--set store.clock=server is accepted and normalizes like a file', () => {
    const doc = run({ clock: 'server' }, [{ name: 'A', machine: 'app1', ttlMs: 2000 }]);
    expect(doc.scenario.store).toMatchObject({ kind: 'sql', clock: 'server', primaries: null, replicationLagMs: 1000 });
  });
});
