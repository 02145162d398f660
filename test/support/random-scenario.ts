import fc from 'fast-check';

const machines = ['app1', 'app2', 'app3', 'db'];

const client = (name: string) =>
  fc.record({
    name: fc.constant(name),
    machine: fc.constantFrom('app1', 'app2', 'app3'),
    startMs: fc.integer({ min: 0, max: 3000 }),
    ttlMs: fc.integer({ min: 200, max: 5000 }),
    workMs: fc.integer({ min: 0, max: 4000 }),
    refreshEveryMs: fc.option(fc.integer({ min: 100, max: 2000 }), { nil: null }),
    checkRemaining: fc.boolean(),
    writes: fc.integer({ min: 0, max: 3 }),
    iterations: fc.integer({ min: 1, max: 3 }),
    thinkMs: fc.integer({ min: 0, max: 500 }),
    acquire: fc.record({
      mode: fc.constantFrom('try', 'blocking'),
      method: fc.constantFrom('atomic', 'exists-then-set'),
      retries: fc.integer({ min: 0, max: 5 }),
      retryDelayMs: fc.integer({ min: 10, max: 1000 }),
      waitTimeoutMs: fc.constantFrom(null, 2000, 8000),
    }),
    release: fc.record({ method: fc.constantFrom('token-checked', 'plain-del'), inFinally: fc.boolean() }),
  });

const clientNames = ['A', 'B', 'C', 'D'];

const fault = fc.oneof(
  fc.record({
    kind: fc.constant('pause'),
    atMs: fc.integer({ min: 0, max: 8000 }),
    target: fc.constantFrom(...clientNames),
    durationMs: fc.integer({ min: 1, max: 8000 }),
  }),
  fc.record({ kind: fc.constant('crash'), atMs: fc.integer({ min: 0, max: 8000 }), target: fc.constantFrom(...clientNames) }),
  fc.record({
    kind: fc.constant('store-restart'),
    atMs: fc.integer({ min: 0, max: 8000 }),
    target: fc.constant('redis'),
    downMs: fc.integer({ min: 0, max: 3000 }),
  }),
  fc.record({
    kind: fc.constant('partition'),
    atMs: fc.integer({ min: 0, max: 8000 }),
    durationMs: fc.integer({ min: 1, max: 5000 }),
    groups: fc.constant([['app1'], ['db']]),
  }),
  fc.record({
    kind: fc.constant('clock-jump'),
    atMs: fc.integer({ min: 0, max: 8000 }),
    machine: fc.constantFrom(...machines),
    byMs: fc.integer({ min: -5000, max: 5000 }),
  }),
  fc.record({
    kind: fc.constant('clock-drift'),
    atMs: fc.integer({ min: 0, max: 8000 }),
    machine: fc.constantFrom(...machines),
    driftPpm: fc.integer({ min: -50000, max: 50000 }),
  }),
  fc.record({
    kind: fc.constant('latency-spike'),
    atMs: fc.integer({ min: 0, max: 8000 }),
    durationMs: fc.integer({ min: 1, max: 3000 }),
    extraMs: fc.integer({ min: 0, max: 2000 }),
  }),
);

/** Random but valid scenarios over every feature of the engine, for property tests. */
export const randomScenario = fc.integer({ min: 1, max: 4 }).chain((n) =>
  fc.record({
    name: fc.constant('random'),
    seed: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
    budget: fc.constant({ maxEvents: 50_000, maxTimeMs: 120_000 }),
    machines: fc
      .constant(machines.map((name) => ({ name })))
      .chain((ms) =>
        fc.tuple(
          ...ms.map((m) =>
            fc.record({ name: fc.constant(m.name), clockOffsetMs: fc.integer({ min: -2000, max: 2000 }), clockDriftPpm: fc.integer({ min: -200, max: 200 }) }),
          ),
        ),
      ),
    network: fc.record({ latencyMinMs: fc.constantFrom(0.1, 0.5, 1), latencyMaxMs: fc.constantFrom(2, 5, 50), loss: fc.constantFrom(0, 0, 0.01, 0.1) }),
    store: fc.record({
      kind: fc.constant('redis'),
      machine: fc.constant('db'),
      persistence: fc.constantFrom('none', 'aof-everysec', 'aof-always'),
      fencingTokenStart: fc.integer({ min: 0, max: 100 }),
    }),
    resource: fc.record({ machine: fc.constant('db'), fencing: fc.boolean() }),
    clients: fc.tuple(...clientNames.slice(0, n).map(client)),
    faults: fc
      .array(fault, { maxLength: 5 })
      .map((fs) => fs.filter((f) => !('target' in f) || f.target === 'redis' || clientNames.slice(0, n).includes(f.target))),
  }),
);
