import { describe, expect, it } from 'vitest';
import { runScenario } from '../../sim/run.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { RedlockDriver } from '../../sim/stores/redlock-driver.js';
import { driftUs, majority, REDLOCK, RedlockNode, type RedlockSpec } from '../../sim/stores/redlock.js';
import type { AcquireResult, StepResult } from '../../sim/stores/types.js';
import { QuorumHarness } from '../support/quorum-harness.js';
import { scenarioIssues } from '../support/refusal.js';

const MS = 1000;
const S = 1_000_000;
const NAMES = ['A', 'B', 'C', 'D', 'E'];

function spec(over: Partial<RedlockSpec> = {}): RedlockSpec {
  return {
    kind: 'redlock',
    name: 'redlock',
    nodes: NAMES.map((n) => ({ name: n, machine: `host${n}`, persistence: null })),
    persistence: 'none',
    driftFactor: 0.01,
    retryCount: 10,
    retryDelayMs: 200,
    retryJitterMs: 100,
    restartDelayMs: 0,
    ...over,
  };
}

/** Five Redlock nodes on hostA–hostE and clients on app1/app2, built the way the store kind builds them. */
function setup(over: Partial<RedlockSpec> = {}) {
  const h = new QuorumHarness(['app1', 'app2', ...NAMES.map((n) => `host${n}`)]);
  const s = spec(over);
  const instance = REDLOCK.create(h.world, s, {} as never);
  h.addNodes(instance.nodes);
  const nodes = [...instance.nodes.values()] as RedlockNode[];
  const driver = (): RedlockDriver => REDLOCK.driver(s, {} as never, {} as never) as unknown as RedlockDriver;
  return { h, s, nodes, driver };
}

const args = (owner: string, ttlUs: number) => ({ key: 'job', owner, ttlUs, shared: false, waitUs: undefined, attempt: 1 });

/** Cuts `machines` off from everyone else for `forUs`, from now. */
function cut(h: QuorumHarness, machines: string[], forUs: number): void {
  const others = ['app1', 'app2', ...NAMES.map((n) => `host${n}`)].filter((m) => !machines.includes(m));
  h.world.network.addPartition(99, [machines, others]);
  h.world.kernel.after(forUs, () => h.world.network.removePartition(99));
}

describe('Redlock model (STORES.md: majority of N Redis nodes, validity = TTL − elapsed − drift, retries with jitter)', () => {
  it('declares the capabilities STORES.md gives Redlock: remote, not blocking, expiring, not sharing, no fencing token', () => {
    expect(REDLOCK.capabilities).toMatchObject({ scope: 'remote', blocking: false, expiring: true, sharing: false, fencingToken: null });
    expect(REDLOCK.capabilities.losesLockWhen.join(' ')).toMatch(/restart/);
    expect(REDLOCK.faults).toEqual(['store-restart']);
  });

  it('the quorum is a majority, floor(N/2) + 1, and drift is 1 % of the TTL plus 2 ms as in node-redlock', () => {
    expect([1, 2, 3, 4, 5, 6].map(majority)).toEqual([1, 2, 2, 3, 3, 4]);
    expect(driftUs(10 * S, 0.01)).toBe(102 * MS);
    expect(driftUs(30 * S, 0.01)).toBe(302 * MS);
    expect(driftUs(10 * S, 0)).toBe(2 * MS);
  });

  it('acquires with the same random value on every node in parallel and succeeds on a majority', () => {
    const { h, driver } = setup();
    cut(h, ['hostD', 'hostE'], S);
    const got = h.spawn('c1', 'app1', 10 * MS, (io) => driver().acquire(io, args('c1:1', 10 * S)));
    h.advance(S);
    expect(got.value?.status).toBe('ok');
    const asked = h.events('acquire.request', 'c1');
    expect(asked.map((e) => e.peer)).toEqual(NAMES);
    // All five requests leave at the same instant: the protocol does not go node by node.
    expect(new Set(asked.map((e) => e.timeUs)).size).toBe(1);
    expect(h.events('lock.granted').map((e) => [e.actor, e.owner])).toEqual([
      ['A', 'c1:1'],
      ['B', 'c1:1'],
      ['C', 'c1:1'],
    ]);
  });

  it("ends the client's lease at start + TTL − drift by its own clock: validity = TTL − elapsed − drift", () => {
    const { h, driver } = setup();
    const got = h.spawn('c1', 'app1', 10 * MS, (io) => driver().acquire(io, args('c1:1', 10 * S)));
    h.advance(S);
    const ok = got.value as Extract<AcquireResult, { status: 'ok' }>;
    expect(ok.expiresLocalUs).toBe(10 * MS + 10 * S - 102 * MS);
  });

  it('hands out no fencing token, though every node keeps its own INCR counter', () => {
    const { h, driver } = setup();
    const got = h.spawn('c1', 'app1', 0, (io) => driver().acquire(io, args('c1:1', 10 * S)));
    h.advance(S);
    expect(got.value?.status).toBe('ok');
    expect((got.value as { fence?: number }).fence).toBeUndefined();
  });

  it('marks every node one group with a majority quorum, so the checker holds the lock only while a majority does', () => {
    const { h, driver } = setup();
    h.spawn('c1', 'app1', 0, (io) => driver().acquire(io, args('c1:1', 10 * S)));
    h.advance(S);
    for (const e of h.events('lock.granted')) expect(e.data).toMatchObject({ group: 'redlock', quorum: 3 });
  });

  it('refuses a second owner while a majority holds the key, names the holder, and cleans up its minority', () => {
    const { h, driver } = setup({ retryCount: 0 });
    cut(h, ['hostD', 'hostE'], 100 * MS);
    h.spawn('c1', 'app1', 10 * MS, (io) => driver().acquire(io, args('c1:1', 10 * S)));
    const second = h.spawn('c2', 'app2', 200 * MS, (io) => driver().acquire(io, args('c2:1', 10 * S)));
    h.advance(S);
    expect(second.value).toMatchObject({ status: 'denied', holder: 'c1:1' });
    expect((second.value as { reason: string }).reason).toMatch(/2 of 5 nodes \(3 needed\)/);
    // c2 got D and E, then deleted both again: redis.io's "unlock all the instances".
    expect(
      h
        .events('lock.released')
        .filter((e) => e.owner === 'c2:1')
        .map((e) => e.actor),
    ).toEqual(expect.arrayContaining(['D', 'E']));
    expect(h.events('release.request', 'c2').map((e) => e.peer)).toEqual(NAMES);
    expect(h.events('quorum.missed', 'c2')[0]?.data).toMatchObject({ granted: 2, of: 5, needed: 3, unit: 'nodes' });
  });

  it('retries retryCount more rounds, retryDelay ± retryJitter apart, inside one acquire, then gives up', () => {
    const { h, driver } = setup();
    h.spawn('c1', 'app1', 0, (io) => driver().acquire(io, args('c1:1', 60 * S)));
    const second = h.spawn('c2', 'app2', S, (io) => driver().acquire(io, args('c2:1', 60 * S)));
    h.advance(20 * S);
    expect(second.value?.status).toBe('denied');
    const rounds = h.events('quorum.missed', 'c2');
    expect(rounds).toHaveLength(11);
    const waits = rounds.slice(0, -1).map((e) => e.data?.retryInUs as number);
    for (const w of waits) {
      expect(w).toBeGreaterThanOrEqual(100 * MS);
      expect(w).toBeLessThanOrEqual(300 * MS);
    }
    expect(new Set(waits).size).toBeGreaterThan(1);
    expect(rounds[10]?.data?.retryInUs).toBeUndefined();
  });

  it('draws the same jitter for the same seed', () => {
    const waits = (): number[] => {
      const { h, driver } = setup();
      h.spawn('c1', 'app1', 0, (io) => driver().acquire(io, args('c1:1', 60 * S)));
      h.spawn('c2', 'app2', S, (io) => driver().acquire(io, args('c2:1', 60 * S)));
      h.advance(20 * S);
      return h.events('quorum.missed', 'c2').map((e) => e.data?.retryInUs as number);
    };
    expect(waits()).toEqual(waits());
  });

  it('a majority won too slowly has no validity left: it counts as failed and is released everywhere', () => {
    const { h, driver } = setup({ retryCount: 0 });
    cut(h, ['hostD', 'hostE'], S);
    // Two nodes never answer, so the round lasts the 50 ms request timeout: more than a 40 ms TTL.
    const got = h.spawn('c1', 'app1', 10 * MS, (io) => driver().acquire(io, args('c1:1', 40 * MS)));
    h.advance(S);
    expect(got.value?.status).toBe('denied');
    expect((got.value as { reason: string }).reason).toMatch(/validity ran out/);
    expect(h.events('lock.granted')).toHaveLength(3);
    expect(h.events('release.request', 'c1').map((e) => e.peer)).toEqual(NAMES);
  });

  it('each node expires its copy TTL after its own grant, by its own clock', () => {
    const { h, driver } = setup();
    h.spawn('c1', 'app1', 0, (io) => driver().acquire(io, args('c1:1', 2 * S)));
    h.advance(5 * S);
    const expired = h.events('lock.expired');
    expect(expired.map((e) => e.actor)).toEqual(expect.arrayContaining(NAMES));
    for (const e of expired) expect(e.timeUs).toBe(2 * S + MS);
  });

  it("a forward jump of one node's clock expires its copy early, reported with its group and quorum", () => {
    const { h, driver } = setup();
    cut(h, ['hostD', 'hostE'], 100 * MS);
    h.spawn('c1', 'app1', 10 * MS, (io) => driver().acquire(io, args('c1:1', 10 * S)));
    h.advance(S);
    const c = h.world.machine('hostC');
    c.clock.jump(h.world.nowUs, 20 * S);
    c.clockChanged();
    h.advance(2 * S);
    expect(h.events('lock.expired').map((e) => [e.actor, e.timeUs])).toEqual([['C', S]]);
    // The expiry carries the group and quorum, which is how the checker sees 2 of 3 needed left.
    expect(h.events('lock.expired')[0]?.data).toMatchObject({ group: 'redlock', quorum: 3 });
  });

  it('releases with a token-checked DEL on every node; it succeeds when a majority deleted its copy', () => {
    const { h, driver } = setup();
    const d = driver();
    const out: { acquired?: AcquireResult; released?: StepResult; other?: StepResult } = {};
    h.spawn('c1', 'app1', 0, function* (io) {
      out.acquired = yield* d.acquire(io, args('c1:1', 10 * S));
      out.other = yield* d.release(io, { key: 'job', owner: 'c9:1', fence: undefined });
      out.released = yield* d.release(io, { key: 'job', owner: 'c1:1', fence: undefined });
    });
    h.advance(S);
    expect(out.other).toMatchObject({ status: 'failed' });
    expect(out.released).toMatchObject({ status: 'ok' });
    expect(h.events('lock.released').map((e) => e.actor)).toEqual(expect.arrayContaining(NAMES));
    expect(h.events('lock.released').every((e) => e.owner === 'c1:1')).toBe(true);
  });

  it('extends on every node by the same quorum rule', () => {
    const { h, driver } = setup();
    const d = driver();
    const out: { refreshed?: StepResult } = {};
    h.spawn('c1', 'app1', 0, function* (io) {
      yield* d.acquire(io, args('c1:1', 2 * S));
      yield { k: 'sleep', localUs: S };
      out.refreshed = yield* d.refresh(io, { key: 'job', owner: 'c1:1', fence: undefined }, 2 * S);
    });
    h.advance(10 * S);
    expect(out.refreshed?.status).toBe('ok');
    expect(h.events('lock.refreshed')).toHaveLength(5);
    for (const e of h.events('lock.expired')) expect(e.timeUs).toBeGreaterThan(3 * S);
  });

  it('refuses to extend a lock whose validity has run out by the client clock, without asking any node (node-redlock)', () => {
    const { h, driver } = setup();
    const d = driver();
    const out: { refreshed?: StepResult } = {};
    h.spawn('c1', 'app1', 0, function* (io) {
      yield* d.acquire(io, args('c1:1', 2 * S));
      yield { k: 'sleep', localUs: 1990 * MS };
      out.refreshed = yield* d.refresh(io, { key: 'job', owner: 'c1:1', fence: undefined }, 2 * S);
    });
    h.advance(10 * S);
    expect(out.refreshed).toMatchObject({ status: 'failed', reason: 'cannot extend an already-expired lock' });
    expect(h.events('refresh.request')).toHaveLength(0);
  });

  it('a node restarted without persistence comes back empty, so a second client can win a majority with it', () => {
    const { h, nodes, driver } = setup();
    cut(h, ['hostD', 'hostE'], 100 * MS);
    h.spawn('c1', 'app1', 10 * MS, (io) => driver().acquire(io, args('c1:1', 10 * S)));
    h.advance(S);
    nodes[2]!.restart(100 * MS);
    h.world.kernel.at(2 * S, () => cut(h, ['hostA', 'hostB'], 100 * MS));
    const second = h.spawn('c2', 'app2', 2 * S + 10 * MS, (io) => driver().acquire(io, args('c2:1', 10 * S)));
    h.advance(3 * S);
    expect(h.events('lock.lost').map((e) => [e.actor, e.owner, e.reason])).toEqual([['C', 'c1:1', 'restart without persistence']]);
    expect(second.value?.status).toBe('ok');
    expect(
      h
        .events('lock.granted')
        .filter((e) => e.owner === 'c2:1')
        .map((e) => e.actor),
    ).toEqual(['C', 'D', 'E']);
  });

  it('the recommended restart delay keeps a crashed node refusing requests for at least that long', () => {
    const { h, nodes } = setup({ restartDelayMs: 11_000 });
    h.advance(S);
    nodes[2]!.restart(100 * MS);
    h.advance(11 * S);
    expect(nodes[2]!.isUp()).toBe(false);
    h.advance(12 * S);
    expect(nodes[2]!.isUp()).toBe(true);
    expect(h.events('store.up').map((e) => e.timeUs)).toEqual([12 * S]);
  });

  it('with persistence set for one node, only that node keeps its copy across a restart', () => {
    const base = spec();
    const { h, nodes, driver } = setup({ nodes: base.nodes.map((n) => (n.name === 'C' ? { ...n, persistence: 'aof-always' } : n)) });
    h.spawn('c1', 'app1', 0, (io) => driver().acquire(io, args('c1:1', 10 * S)));
    h.advance(S);
    nodes[1]!.restart(10 * MS);
    nodes[2]!.restart(10 * MS);
    h.advance(2 * S);
    expect(h.events('lock.lost').map((e) => e.actor)).toEqual(['B']);
  });
});

const base = (store: Record<string, unknown>, client: Record<string, unknown> = {}, faults: unknown[] = []) => ({
  name: 'bad',
  machines: [{ name: 'app' }, { name: 'h1' }, { name: 'h2' }, { name: 'h3' }],
  store: {
    kind: 'redlock',
    nodes: [
      { name: 'n1', machine: 'h1' },
      { name: 'n2', machine: 'h2' },
      { name: 'n3', machine: 'h3' },
    ],
    ...store,
  },
  clients: [{ name: 'c', machine: 'app', ...client }],
  faults,
});

const issues = (doc: unknown): Array<{ path: string; message: string }> => scenarioIssues(doc);

describe('Redlock scenarios it refuses', () => {
  it('accepts a plain three-node store and fills in node-redlock defaults', () => {
    const s = normalizeScenario(base({}), 'ok.json').store as RedlockSpec;
    expect(s).toMatchObject({ driftFactor: 0.01, retryCount: 10, retryDelayMs: 200, retryJitterMs: 100, restartDelayMs: 0, persistence: 'none' });
    expect(s.nodes[0]).toEqual({ name: 'n1', machine: 'h1', persistence: null });
  });

  it('accepts a read lock and a native wait: what a store cannot do fails at run time (test/steps), not in the scenario', () => {
    expect(issues(base({}, { acquire: { shared: true }, writes: 0 }))).toEqual([]);
    expect(issues(base({}, { acquire: { mode: 'blocking', poll: false } }))).toEqual([]);
  });

  it('refuses a plain DEL release: the store only deletes with the token', () => {
    expect(issues(base({}, { release: { method: 'plain-del' } }))[0]).toMatchObject({ path: 'clients[0].release.method' });
  });

  it('refuses two nodes with one name', () => {
    const doc = base({
      nodes: [
        { name: 'n1', machine: 'h1' },
        { name: 'n1', machine: 'h2' },
      ],
    });
    expect(issues(doc)).toContainEqual({ path: 'store.nodes[1].name', message: 'the redlock store has two nodes named "n1"' });
  });

  it('refuses a node on a machine the scenario does not define', () => {
    expect(issues(base({ nodes: [{ name: 'n1', machine: 'nowhere' }] }))[0]).toMatchObject({
      path: 'store.nodes[0].machine',
      message: expect.stringMatching(/no machine named "nowhere"/),
    });
  });

  it('refuses a TTL the drift allowance swallows whole', () => {
    expect(issues(base({}, { ttlMs: 2 }))).toContainEqual({
      path: 'clients[0].ttlMs',
      message: 'the redlock store takes 2.02 ms off every lease for clock drift (ttl × driftFactor + 2 ms), which leaves no validity for a 2 ms TTL',
    });
  });

  it('refuses a store fault Redlock does not know', () => {
    expect(issues(base({}, {}, [{ kind: 'eviction', atMs: 1, target: 'n1' }]))[0]).toMatchObject({
      path: 'faults[0].kind',
      message: expect.stringMatching(/the redlock store has no fault "eviction"/),
    });
  });

  it('refuses a drift factor outside node-redlock sense', () => {
    expect(issues(base({ driftFactor: 2 }))[0]).toMatchObject({ path: 'store.driftFactor' });
  });
});

describe('Redlock extend', () => {
  it("a successful extend sets the client's lease to the round's start + TTL − drift, as acquire does", () => {
    const doc = runScenario(
      normalizeScenario(
        {
          name: 'extend',
          machines: [{ name: 'app' }, { name: 'h1' }, { name: 'h2' }, { name: 'h3' }],
          network: { latencyMinMs: 1, latencyMaxMs: 1 },
          store: {
            kind: 'redlock',
            nodes: [
              { name: 'n1', machine: 'h1' },
              { name: 'n2', machine: 'h2' },
              { name: 'n3', machine: 'h3' },
            ],
          },
          clients: [{ name: 'c', machine: 'app', ttlMs: 1000, workMs: 1500, refreshEveryMs: 500, checkRemaining: true }],
        },
        'extend',
      ),
    );
    const ok = doc.events.find((e) => e.kind === 'refresh.ok')!;
    const asked = doc.events.find((e) => e.kind === 'refresh.request')!;
    // drift = 1 % of 1 s + 2 ms = 12 ms; the lease is measured from the round's start.
    expect(ok.believes?.ttlLeftUs).toBe(asked.localUs! + 1_000_000 - 12_000 - ok.localUs!);
    expect(doc.verdict.outcome).toBe('safe');
  });
});
