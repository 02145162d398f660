import { describe, expect, it } from 'vitest';
import { QuorumHarness } from '../support/quorum-harness.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import type { RedisSpec } from '../../sim/scenario/types.js';
import { storeKind } from '../../sim/stores/registry.js';
import { CombinedDriver, strategyCanBeMet, strategyMet, strategyQuorum, type CombinedSpec, type Strategy } from '../../sim/stores/combined.js';
import type { AcquireResult, StepResult, StoreNode } from '../../sim/stores/types.js';
import { scenarioIssues } from '../support/refusal.js';

const COMBINED = storeKind('combined')!;

const MS = 1000;
const S = 1_000_000;

const redis = (name: string): RedisSpec => ({ kind: 'redis', name, machine: `db-${name}`, persistence: 'none', fencingTokenStart: 1, keyPrefix: '' });

/** A Combined store over three Redis servers r1–r3, built the way the store kind builds it. */
function setup(strategy: Strategy, names = ['r1', 'r2', 'r3']) {
  const h = new QuorumHarness(['app1', 'app2', ...names.map((n) => `db-${n}`)]);
  const spec: CombinedSpec = { kind: 'combined', name: 'combined', strategy, stores: names.map(redis) };
  const instance = COMBINED.create(h.world, spec, {} as never);
  h.addNodes(instance.nodes);
  const node = (n: string): StoreNode => instance.nodes.get(n)!;
  const driver = (): CombinedDriver => COMBINED.driver(spec, {} as never, {} as never) as unknown as CombinedDriver;
  return { h, node, driver };
}

const args = (owner: string, ttlUs: number) => ({ key: 'job', owner, ttlUs, shared: false, waitUs: undefined, attempt: 1 });

describe('Combined model (STORES.md: Symfony CombinedStore, consensus or unanimous)', () => {
  it('declares remote, not blocking, expiring, sharing where its stores share, and no fencing token', () => {
    expect(COMBINED.capabilities).toMatchObject({ scope: 'remote', blocking: false, expiring: true, sharing: true, fencingToken: null });
  });

  it('consensus is met by more than half of the stores and unanimous only by all of them (Symfony strategies)', () => {
    expect([0, 1, 2, 3].map((k) => strategyMet('consensus', k, 3))).toEqual([false, false, true, true]);
    expect([1, 2, 3].map((k) => strategyMet('consensus', k, 4))).toEqual([false, false, true]);
    expect([2, 3].map((k) => strategyMet('unanimous', k, 3))).toEqual([false, true]);
    expect([0, 1, 2].map((k) => strategyCanBeMet('consensus', k, 4))).toEqual([true, true, false]);
    expect([0, 1].map((k) => strategyCanBeMet('unanimous', k, 3))).toEqual([true, false]);
    expect([strategyQuorum('consensus', 3), strategyQuorum('consensus', 4), strategyQuorum('unanimous', 3)]).toEqual([2, 3, 3]);
  });

  it('saves in the stores one after another, each request after the previous reply', () => {
    const { h, driver } = setup('unanimous');
    const got = h.spawn('c1', 'app1', 0, (io) => driver().acquire(io, args('c1:1', 10 * S)));
    h.advance(S);
    expect(got.value?.status).toBe('ok');
    const asked = h.events('acquire.request', 'c1');
    expect(asked.map((e) => [e.peer, e.timeUs])).toEqual([
      ['r1', 0],
      ['r2', 2 * MS],
      ['r3', 4 * MS],
    ]);
  });

  it('passes each next store the TTL left after the time already spent', () => {
    const { h, driver } = setup('unanimous');
    h.spawn('c1', 'app1', 0, (io) => driver().acquire(io, args('c1:1', 10 * S)));
    h.advance(S);
    expect(h.events('acquire.request', 'c1').map((e) => e.ttlUs)).toEqual([10 * S, 10 * S - 2 * MS, 10 * S - 4 * MS]);
    // So every store's copy ends at about the same true time.
    expect(h.events('lock.granted').map((e) => e.data?.expiresLocalUs)).toEqual([10 * S + MS, 10 * S + MS, 10 * S + MS]);
  });

  it('consensus succeeds with one of three stores down; the checker needs two of them', () => {
    const { h, node, driver } = setup('consensus');
    node('r2').restart!(60 * S);
    const got = h.spawn('c1', 'app1', 10 * MS, (io) => driver().acquire(io, args('c1:1', 10 * S)));
    h.advance(S);
    expect(got.value?.status).toBe('ok');
    for (const e of h.events('lock.granted')) expect(e.data).toMatchObject({ group: 'combined', quorum: 2 });
  });

  it('unanimous stops at the first failure without asking the rest, then deletes the key from every store', () => {
    const { h, node, driver } = setup('unanimous');
    node('r2').restart!(60 * S);
    const got = h.spawn('c1', 'app1', 10 * MS, (io) => driver().acquire(io, args('c1:1', 10 * S)));
    h.advance(S);
    expect(got.value).toMatchObject({ status: 'denied', reason: 'the unanimous strategy cannot be met: 1 of 3 stores failed' });
    expect(h.events('acquire.request', 'c1').map((e) => e.peer)).toEqual(['r1', 'r2']);
    expect(h.events('release.request', 'c1').map((e) => e.peer)).toEqual(['r1', 'r2', 'r3']);
    expect(h.events('lock.released').map((e) => [e.actor, e.owner])).toEqual([['r1', 'c1:1']]);
    expect(h.events('quorum.missed', 'c1')[0]?.data).toMatchObject({ granted: 1, of: 3, needed: 3, unit: 'stores', asked: 2, strategy: 'unanimous' });
  });

  it('consensus gives up as soon as a majority has failed', () => {
    const { h, node, driver } = setup('consensus');
    node('r1').restart!(60 * S);
    node('r2').restart!(60 * S);
    const got = h.spawn('c1', 'app1', 10 * MS, (io) => driver().acquire(io, args('c1:1', 10 * S)));
    h.advance(S);
    expect(got.value?.status).toBe('denied');
    expect(h.events('acquire.request', 'c1').map((e) => e.peer)).toEqual(['r1', 'r2']);
  });

  it('refuses a second owner and names the holder a store reported', () => {
    const { h, driver } = setup('consensus');
    h.spawn('c1', 'app1', 0, (io) => driver().acquire(io, args('c1:1', 10 * S)));
    const second = h.spawn('c2', 'app2', S, (io) => driver().acquire(io, args('c2:1', 10 * S)));
    h.advance(2 * S);
    expect(second.value).toMatchObject({ status: 'denied', holder: 'c1:1' });
    expect(h.events('lock.granted').filter((e) => e.owner === 'c2:1')).toEqual([]);
  });

  it('stops when the TTL runs out before the stores have all been asked, and leaves the expired key to the Lock (checkNotExpired throws LockExpiredException)', () => {
    const { h, driver } = setup('unanimous');
    const got = h.spawn('c1', 'app1', 0, (io) => driver().acquire(io, args('c1:1', 3 * MS)));
    h.advance(S);
    // A grant whose lease is already over by the client's clock: the step runner deletes it and throws.
    expect(got.value).toMatchObject({ status: 'ok', expiresLocalUs: 3 * MS });
    expect(h.events('acquire.request', 'c1').map((e) => e.peer)).toEqual(['r1', 'r2']);
    expect(h.events('quorum.missed', 'c1')).toEqual([]);
  });

  it('the lease ends TTL after the start by the client clock, like Symfony’s Key', () => {
    const { h, driver } = setup('consensus');
    const got = h.spawn('c1', 'app1', 5 * MS, (io) => driver().acquire(io, args('c1:1', 10 * S)));
    h.advance(S);
    expect((got.value as Extract<AcquireResult, { status: 'ok' }>).expiresLocalUs).toBe(5 * MS + 10 * S);
  });

  it('each store expires its copy by its own TTL, so the combined lock expires with them', () => {
    const { h, driver } = setup('consensus');
    h.spawn('c1', 'app1', 0, (io) => driver().acquire(io, args('c1:1', 2 * S)));
    h.advance(5 * S);
    expect(h.events('lock.expired').map((e) => e.actor)).toEqual(['r1', 'r2', 'r3']);
  });

  it('refreshes each store in turn with the TTL left, and a refresh that fails the strategy deletes the key everywhere', () => {
    const { h, node, driver } = setup('unanimous');
    const d = driver();
    const out: { first?: StepResult; second?: StepResult } = {};
    h.spawn('c1', 'app1', 0, function* (io) {
      yield* d.acquire(io, args('c1:1', 10 * S));
      out.first = yield* d.refresh(io, { key: 'job', owner: 'c1:1', fence: undefined }, 10 * S);
      yield { k: 'sleep', localUs: S };
      out.second = yield* d.refresh(io, { key: 'job', owner: 'c1:1', fence: undefined }, 10 * S);
    });
    h.advance(500 * MS);
    node('r3').restart!(60 * S);
    h.advance(5 * S);
    expect(out.first?.status).toBe('ok');
    expect(
      h
        .events('refresh.request', 'c1')
        .slice(0, 3)
        .map((e) => e.ttlUs),
    ).toEqual([10 * S, 10 * S - 2 * MS, 10 * S - 4 * MS]);
    expect(out.second?.status).toBe('failed');
    expect(h.events('lock.released').map((e) => e.actor)).toEqual(['r1', 'r2']);
  });

  it('releases by deleting the key from every store, only the owner’s', () => {
    const { h, driver } = setup('consensus');
    const d = driver();
    const out: { other?: StepResult; mine?: StepResult } = {};
    h.spawn('c1', 'app1', 0, function* (io) {
      yield* d.acquire(io, args('c1:1', 10 * S));
      out.other = yield* d.release(io, { key: 'job', owner: 'c9:1', fence: undefined });
      out.mine = yield* d.release(io, { key: 'job', owner: 'c1:1', fence: undefined });
    });
    h.advance(S);
    expect(out.other).toMatchObject({ status: 'failed', reason: 'deleted from 0 of 3 stores' });
    expect(out.mine?.status).toBe('ok');
    expect(h.events('lock.released').map((e) => [e.actor, e.owner])).toEqual([
      ['r1', 'c1:1'],
      ['r2', 'c1:1'],
      ['r3', 'c1:1'],
    ]);
  });

  it('a restart without persistence loses one store’s copy; consensus over three still has two', () => {
    const { h, node, driver } = setup('consensus');
    h.spawn('c1', 'app1', 0, (io) => driver().acquire(io, args('c1:1', 10 * S)));
    h.advance(S);
    node('r1').restart!(10 * MS);
    const second = h.spawn('c2', 'app2', 2 * S, (io) => driver().acquire(io, args('c2:1', 10 * S)));
    h.advance(3 * S);
    expect(h.events('lock.lost').map((e) => [e.actor, e.owner])).toEqual([['r1', 'c1:1']]);
    expect(second.value?.status).toBe('denied');
  });
});

const base = (store: Record<string, unknown>, client: Record<string, unknown> = {}, faults: unknown[] = []) => ({
  name: 'bad',
  machines: [{ name: 'app' }, { name: 'd1' }, { name: 'd2' }, { name: 'd3' }],
  store: {
    kind: 'combined',
    stores: [
      { kind: 'redis', machine: 'd1' },
      { kind: 'redis', machine: 'd2' },
      { kind: 'redis', machine: 'd3' },
    ],
    ...store,
  },
  clients: [{ name: 'c', machine: 'app', ...client }],
  faults,
});

const issues = (doc: unknown): Array<{ path: string; message: string }> => scenarioIssues(doc);

describe('Combined scenarios it refuses', () => {
  it('names unnamed stores after their kind and position, and defaults to consensus', () => {
    const s = normalizeScenario(base({}), 'ok.json').store as CombinedSpec;
    expect(s.strategy).toBe('consensus');
    expect(s.stores.map((x) => x.name)).toEqual(['redis1', 'redis2', 'redis3']);
    expect(COMBINED.nodeNames(s)).toEqual(['redis1', 'redis2', 'redis3']);
  });

  it('validates each store with its own kind’s schema', () => {
    expect(issues(base({ stores: [{ kind: 'redis', machine: 'd1', persistence: 'sometimes' }] }))[0]).toMatchObject({ path: 'store.stores[0].persistence' });
  });

  it('reports a store’s own problems under its path', () => {
    expect(issues(base({ stores: [{ kind: 'redis', machine: 'nowhere' }] }))[0]).toMatchObject({
      path: 'store.stores[0].machine',
      message: expect.stringMatching(/no machine named "nowhere"/),
    });
  });

  it('refuses two stores with one name', () => {
    const doc = base({
      stores: [
        { kind: 'redis', name: 'x', machine: 'd1' },
        { kind: 'redis', name: 'x', machine: 'd2' },
      ],
    });
    expect(issues(doc)).toContainEqual({ path: 'store.stores[1].name', message: 'the combined store already has a node named "x" (stores[0])' });
  });

  it('refuses a store of several nodes: the checker cannot judge a quorum of quorums', () => {
    const redlock = {
      kind: 'redlock',
      nodes: [
        { name: 'n1', machine: 'd1' },
        { name: 'n2', machine: 'd2' },
        { name: 'n3', machine: 'd3' },
      ],
    };
    expect(issues(base({ stores: [redlock] }))).toContainEqual({
      path: 'store.stores[0].kind',
      message: 'the combined store takes stores of one node each, but this redlock store has 3: the checker cannot judge a quorum of quorums',
    });
  });

  it('accepts a shared lock (CombinedStore shares where its stores do) and refuses a plain DEL', () => {
    expect(issues(base({}, { acquire: { shared: true }, writes: 0 }))).toEqual([]);
    expect(issues(base({}, { release: { method: 'plain-del' } }))[0]).toMatchObject({ path: 'clients[0].release.method' });
  });

  it('refuses a store fault none of its stores takes, naming the store it was aimed at', () => {
    expect(issues(base({}, {}, [{ kind: 'eviction', atMs: 1, target: 'redis2' }]))).toContainEqual({
      path: 'faults[0].kind',
      message: 'the combined store cannot pass "eviction" on: its store "redis2" (redis) does not take it',
    });
  });

  it('accepts a restart of one of its stores by that store’s node name', () => {
    expect(issues(base({}, {}, [{ kind: 'store-restart', atMs: 1, target: 'redis2', downMs: 5 }]))).toEqual([]);
  });

  it('accepts a deploy of other stores or another strategy, and refuses one that names a field it has not', () => {
    expect(issues(base({}, {}, [{ kind: 'deploy', atMs: 1, clients: ['c'], store: { strategy: 'unanimous' } }]))).toEqual([]);
    expect(issues(base({}, {}, [{ kind: 'deploy', atMs: 1, clients: ['c'], store: { keyPrefix: 'v2:' } }]))[0]).toMatchObject({
      path: 'faults[0].store.keyPrefix',
    });
  });
});
