import fc from 'fast-check';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import type { Scenario } from '../../sim/scenario/types.js';
import { STORE_KINDS, storeKind } from '../../sim/stores/registry.js';

/*
 * Random but valid scenario documents for every store kind, for property
 * tests and the fuzzer. Each generator stays inside what its store accepts
 * (its capabilities, its faults, its own rules such as Memcached's whole
 * seconds), so every document it makes is one normalizeScenario takes; a
 * test holds it to that.
 */

export const APP_MACHINES = ['app1', 'app2', 'app3'] as const;
export const STORE_MACHINES = ['db', 'db2', 'db3'] as const;
export const MACHINES = [...APP_MACHINES, ...STORE_MACHINES] as const;
export const CLIENT_NAMES = ['A', 'B', 'C', 'D'] as const;

/** The store kinds whose store hands out a fencing token (the capability table's fencingToken column). */
export const TOKEN_KINDS: readonly string[] = STORE_KINDS.filter((k) => k.capabilities.fencingToken !== null).map((k) => k.kind);
export const KIND_NAMES: readonly string[] = STORE_KINDS.map((k) => k.kind);

/** The run budget of generated scenarios: small enough for thousands of runs in a test, large enough for every story. */
export const RANDOM_BUDGET = { maxEvents: 20_000, maxTimeMs: 60_000 };

type Doc = Record<string, unknown>;

const storeMachine = fc.constantFrom(...STORE_MACHINES);
const prefix = fc.constantFrom('', 'v1:', 'app/');
const counterStart = fc.oneof(fc.integer({ min: 1, max: 100 }), fc.constant(4_503_599_627_370_000));

/** A store of one node of `kind` (Combined's stores are these), with `name` when given. */
function singleNodeStore(kind: string, name?: string): fc.Arbitrary<Doc> {
  const named = (r: Doc): Doc => (name === undefined ? r : { ...r, name });
  switch (kind) {
    case 'redis':
      return fc
        .record({
          kind: fc.constant('redis'),
          machine: storeMachine,
          persistence: fc.constantFrom('none', 'aof-everysec', 'aof-always'),
          fencingTokenStart: fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constant(4_503_599_627_370_000)),
          keyPrefix: prefix,
        })
        .map(named);
    case 'memcached':
      return fc
        .record({ kind: fc.constant('memcached'), machine: storeMachine, memoryBytes: fc.constantFrom(4096, 1_048_576, 67_108_864), keyPrefix: prefix })
        .map(named);
    case 'sql':
      return fc
        .record({
          kind: fc.constant('sql'),
          machine: storeMachine,
          clock: fc.constantFrom('server', 'client'),
          replicationLagMs: fc.integer({ min: 0, max: 3000 }),
          keyPrefix: prefix,
        })
        .map(named);
    case 'mongodb':
      return fc.record({ kind: fc.constant('mongodb'), machine: storeMachine, ttlMonitorSec: fc.integer({ min: 1, max: 120 }), keyPrefix: prefix }).map(named);
    case 'postgres':
      return fc.record({ kind: fc.constant('postgres'), machine: storeMachine }).map(named);
    case 'zookeeper':
    case 'zookeeper-recipe':
      return fc
        .record({ tickMs: fc.integer({ min: 200, max: 3000 }), ticks: fc.integer({ min: 2, max: 20 }), machine: storeMachine, zxidStart: counterStart })
        .map(({ tickMs, ticks, machine, zxidStart }) => named({ kind, machine, tickMs, sessionTimeoutMs: tickMs * ticks, zxidStart }));
    case 'etcd':
      return fc.record({ kind: fc.constant('etcd'), machine: storeMachine, revisionStart: counterStart }).map(named);
    case 'lock-row':
      return fc.record({ kind: fc.constant('lock-row'), machine: storeMachine, keyPrefix: prefix }).map(named);
    default:
      throw new Error(`no single-node generator for ${kind}`);
  }
}

const COMBINABLE = ['redis', 'memcached', 'sql', 'mongodb', 'postgres', 'zookeeper', 'zookeeper-recipe', 'etcd'] as const;

/** The `store` object of a scenario of `kind`. */
export function randomStore(kind: string): fc.Arbitrary<Doc> {
  switch (kind) {
    case 'flock':
      return fc.record({ kind: fc.constant('flock'), lockDir: fc.constantFrom('/var/lock/app', '/srv/locks') });
    case 'semaphore':
      return fc.constant({ kind: 'semaphore' });
    case 'redlock':
      return fc
        .record({
          n: fc.constantFrom(1, 3, 5),
          persistence: fc.constantFrom('none', 'aof-everysec', 'aof-always'),
          driftFactor: fc.constantFrom(0, 0.01, 0.05),
          retryCount: fc.integer({ min: 0, max: 5 }),
          retryDelayMs: fc.integer({ min: 10, max: 500 }),
          retryJitterMs: fc.integer({ min: 0, max: 200 }),
          restartDelayMs: fc.constantFrom(0, 0, 5000),
        })
        .map(({ n, ...rest }) => ({
          kind: 'redlock',
          nodes: Array.from({ length: n }, (_, i) => ({ name: `r${i + 1}`, machine: MACHINES[(MACHINES.length - 1 - i) % MACHINES.length]! })),
          ...rest,
        }));
    case 'combined':
      return fc
        .record({ strategy: fc.constantFrom('consensus', 'unanimous'), kinds: fc.array(fc.constantFrom(...COMBINABLE), { minLength: 1, maxLength: 3 }) })
        .chain(({ strategy, kinds }) =>
          fc.tuple(...kinds.map((k, i) => singleNodeStore(k, `s${i + 1}`))).map((stores) => ({ kind: 'combined', strategy, stores })),
        );
    case 'sql':
      return fc.oneof(
        singleNodeStore('sql'),
        fc.record({ clock: fc.constantFrom('server', 'client'), replicationLagMs: fc.integer({ min: 0, max: 3000 }) }).map((r) => ({
          kind: 'sql',
          ...r,
          primaries: [
            { name: 'p1', machine: 'db', clients: ['A'] },
            { name: 'p2', machine: 'db2', clients: [] },
          ],
        })),
      );
    default:
      return singleNodeStore(kind);
  }
}

/** A store spec as the normalizer fills it in, without a whole scenario around it. */
function normalizedStore(raw: Doc): Scenario['store'] {
  const kind = storeKind(raw.kind as string)!;
  const scenario = {
    name: 'probe',
    summary: '',
    seed: 1,
    budget: RANDOM_BUDGET,
    machines: MACHINES.map((name) => ({ name, clockOffsetMs: 0, clockDriftPpm: 0 })),
    network: { latencyMinMs: 0.5, latencyMaxMs: 2, distribution: 'uniform' as const, loss: 0 },
    resource: { machine: 'db', fencing: false },
    clients: [],
    faults: [],
  };
  return kind.normalize(raw, { scenario, path: 'store', issues: [] });
}

/** The nodes of a store that a store fault of `fault` kind can be aimed at. */
function nodesTaking(raw: Doc, fault: string): string[] {
  const spec = normalizedStore(raw);
  const kind = storeKind(spec.kind)!;
  if (spec.kind === 'combined') {
    const stores = spec.stores as Scenario['store'][];
    return stores.filter((s) => storeKind(s.kind)!.faults.includes(fault)).flatMap((s) => storeKind(s.kind)!.nodeNames(s));
  }
  return kind.faults.includes(fault) ? kind.nodeNames(spec) : [];
}

function takes(raw: Doc, fault: string): boolean {
  const spec = normalizedStore(raw);
  if (spec.kind === 'combined') return (spec.stores as Scenario['store'][]).some((s) => storeKind(s.kind)!.faults.includes(fault));
  return storeKind(spec.kind)!.faults.includes(fault);
}

const at = fc.integer({ min: 0, max: 12_000 });

/** Faults that fit `store` and the first `clients` clients. */
export function randomFaults(store: Doc, clients: readonly string[], maxLength = 5): fc.Arbitrary<Doc[]> {
  const client = fc.constantFrom(...clients);
  const machine = fc.constantFrom(...MACHINES);
  const options: Array<fc.Arbitrary<Doc>> = [
    fc.record({ kind: fc.constant('pause'), atMs: at, target: client, durationMs: fc.integer({ min: 1, max: 12_000 }) }),
    fc.record({ kind: fc.constant('crash'), atMs: at, target: client }),
    fc.record({
      kind: fc.constant('partition'),
      atMs: at,
      durationMs: fc.integer({ min: 1, max: 8000 }),
      groups: fc.shuffledSubarray([...MACHINES], { minLength: 2 }).map((ms) => {
        const cut = Math.max(1, Math.floor(ms.length / 2));
        return [ms.slice(0, cut), ms.slice(cut)];
      }),
    }),
    fc.record({ kind: fc.constant('clock-jump'), atMs: at, machine, byMs: fc.integer({ min: -8000, max: 8000 }) }),
    fc.record({ kind: fc.constant('clock-drift'), atMs: at, machine, driftPpm: fc.integer({ min: -50_000, max: 50_000 }) }),
    fc.record({
      kind: fc.constant('latency-spike'),
      atMs: at,
      durationMs: fc.integer({ min: 1, max: 5000 }),
      extraMs: fc.integer({ min: 0, max: 3000 }),
      machines: fc.option(fc.shuffledSubarray([...MACHINES], { minLength: 1, maxLength: 2 }), { nil: null }),
    }),
  ];
  const restartable = nodesTaking(store, 'store-restart');
  if (restartable.length > 0)
    options.push(
      fc.record({ kind: fc.constant('store-restart'), atMs: at, target: fc.constantFrom(...restartable), downMs: fc.integer({ min: 0, max: 5000 }) }),
    );
  const evictable = nodesTaking(store, 'eviction');
  if (evictable.length > 0)
    options.push(fc.record({ kind: fc.constant('eviction'), atMs: at, target: fc.constantFrom(...evictable), key: fc.constantFrom(null, 'job') }));
  const pressured = nodesTaking(store, 'memory-pressure');
  if (pressured.length > 0)
    options.push(
      fc.record({
        kind: fc.constant('memory-pressure'),
        atMs: at,
        target: fc.constantFrom(...pressured),
        durationMs: fc.integer({ min: 1, max: 5000 }),
        writesPerSec: fc.integer({ min: 1, max: 100_000 }),
        itemBytes: fc.integer({ min: 1, max: 100_000 }),
      }),
    );
  if (takes(store, 'session-expiry')) options.push(fc.record({ kind: fc.constant('session-expiry'), atMs: at, target: client }));
  if (takes(store, 'connection-loss')) options.push(fc.record({ kind: fc.constant('connection-loss'), atMs: at, target: client }));
  if (takes(store, 'ipc-removal')) options.push(fc.record({ kind: fc.constant('ipc-removal'), atMs: at, machine }));
  if (takes(store, 'lock-file-cleanup')) options.push(fc.record({ kind: fc.constant('lock-file-cleanup'), atMs: at, machine }));
  if (storeKind(store.kind as string)!.faults.includes('deploy')) {
    // Only what the store's deploys may change: a client's own settings, never the server's.
    const deployable = storeKind(store.kind as string)!.deployable ?? [];
    const patches: Array<fc.Arbitrary<Doc>> = [];
    if (deployable.includes('lockDir')) patches.push(fc.record({ lockDir: fc.constantFrom('/var/lock/app2', '/srv/locks') }));
    if (deployable.includes('keyPrefix')) patches.push(fc.record({ keyPrefix: fc.constantFrom('v2:', '') }));
    if (deployable.includes('machine') && store.primaries === undefined && store.servers === undefined) patches.push(fc.record({ machine: storeMachine }));
    if (deployable.includes('strategy')) patches.push(fc.record({ strategy: fc.constantFrom('consensus', 'unanimous') }));
    if (patches.length > 0)
      options.push(
        fc.record({ kind: fc.constant('deploy'), atMs: at, clients: fc.shuffledSubarray([...clients], { minLength: 1 }), store: fc.oneof(...patches) }),
      );
  }
  return fc.array(fc.oneof(...options), { maxLength });
}

/**
 * A client that asks `kind`'s store only for what it can do. A `contended`
 * client starts early, holds short leases for long work and writes often,
 * so leases run out under it and others take over: the runs that put
 * fencing to the test.
 */
export function randomClient(kind: string, name: string, contended = false): fc.Arbitrary<Doc> {
  const k = storeKind(kind)!;
  const caps = k.capabilities;
  const plain = k.plainGetSet;
  return fc
    .record({
      machine: fc.constantFrom(...APP_MACHINES),
      startMs: fc.integer({ min: 0, max: contended ? 1500 : 4000 }),
      // Whole seconds and more: Memcached, the SQL table and etcd refuse less.
      ttlMs: fc.integer({ min: 1, max: contended ? 3 : 8 }).map((s) => s * 1000),
      workMs: fc.integer({ min: contended ? 300 : 0, max: 5000 }),
      refreshEveryMs: fc.option(fc.integer({ min: 100, max: 3000 }), { nil: null }),
      checkRemaining: fc.boolean(),
      writes: fc.integer({ min: contended ? 1 : 0, max: 3 }),
      iterations: fc.integer({ min: 1, max: 3 }),
      thinkMs: fc.integer({ min: 0, max: 500 }),
      requestTimeoutMs: fc.constantFrom(200, 1000, 3000),
      shared: caps.sharing && !contended ? fc.boolean() : fc.constant(false),
      mode: fc.constantFrom('try', 'blocking'),
      poll: caps.blocking ? fc.boolean() : fc.constant(true),
      method: plain ? fc.constantFrom('atomic', 'exists-then-set') : fc.constant('atomic'),
      retries: fc.integer({ min: contended ? 3 : 0, max: contended ? 20 : 5 }),
      retryDelayMs: fc.integer({ min: 10, max: 1000 }),
      waitTimeoutMs: fc.constantFrom(null, 2000, 8000),
      release: plain ? fc.constantFrom('token-checked', 'plain-del') : fc.constant('token-checked'),
      inFinally: fc.boolean(),
    })
    .map((c) => ({
      name,
      machine: c.machine,
      startMs: c.startMs,
      ttlMs: c.ttlMs,
      workMs: c.workMs,
      refreshEveryMs: c.refreshEveryMs,
      checkRemaining: c.checkRemaining,
      writes: c.shared ? 0 : c.writes,
      iterations: c.iterations,
      thinkMs: c.thinkMs,
      requestTimeoutMs: c.requestTimeoutMs,
      acquire: {
        mode: c.mode,
        shared: c.shared,
        poll: c.poll,
        method: c.shared ? 'atomic' : c.method,
        retries: c.retries,
        retryDelayMs: c.retryDelayMs,
        waitTimeoutMs: c.waitTimeoutMs,
      },
      release: { method: c.release, inFinally: c.inFinally },
    }));
}

/**
 * A valid scenario document on a store of `kind`; `fencing` fixes the
 * resource's fencing when given, `contended` makes two to four clients fight
 * over the lock under short leases.
 */
export function randomScenarioOf(kind: string, opts: { fencing?: boolean; maxFaults?: number; contended?: boolean } = {}): fc.Arbitrary<Doc> {
  const contended = opts.contended === true;
  return fc.record({ n: fc.integer({ min: contended ? 2 : 1, max: CLIENT_NAMES.length }), store: randomStore(kind) }).chain(({ n, store }) => {
    const names = CLIENT_NAMES.slice(0, n);
    return fc.record({
      name: fc.constant(`random-${kind}`),
      seed: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
      budget: fc.constant(RANDOM_BUDGET),
      machines: fc.tuple(
        ...MACHINES.map((m) =>
          fc.record({ name: fc.constant(m), clockOffsetMs: fc.integer({ min: -2000, max: 2000 }), clockDriftPpm: fc.integer({ min: -200, max: 200 }) }),
        ),
      ),
      network: fc.record({
        latencyMinMs: fc.constantFrom(0.1, 0.5, 1),
        latencyMaxMs: fc.constantFrom(2, 5, 50),
        distribution: fc.constantFrom('uniform', 'normal', 'long-tail'),
        loss: fc.constantFrom(0, 0, 0.01, 0.1),
      }),
      store: fc.constant(store),
      resource: fc.record({ machine: fc.constant('db'), fencing: opts.fencing === undefined ? fc.boolean() : fc.constant(opts.fencing) }),
      clients: fc.tuple(...names.map((c) => randomClient(kind, c, contended))),
      faults: randomFaults(store, names, opts.maxFaults),
    });
  });
}

/** A valid scenario on any store kind. */
export const randomScenario = fc.constantFrom(...KIND_NAMES).chain((kind) => randomScenarioOf(kind));

/** The generated document, normalized (it always is valid; a test holds the generators to that). */
export function normalized(doc: Doc): Scenario {
  return normalizeScenario(doc, `random ${String(doc.name)}`);
}
