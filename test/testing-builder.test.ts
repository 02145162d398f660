import { describe, expect, it } from 'vitest';
import { InputError } from '../sim/errors.js';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import { BUILTIN_NAMES, BUILTIN_SCENARIOS } from '../sim/scenarios/index.js';
import { scenario, type ScenarioBuilder } from '../sim/testing/builder.js';
import { runDocument, type RunSource } from '../sim/testing/run.js';

const retry = (retries: number, retryDelayMs: number) => ({ acquire: { mode: 'try' as const, retries, retryDelayMs } });
const blocking = { acquire: { mode: 'blocking' as const } };
const nativeBlocking = { acquire: { mode: 'blocking' as const, poll: false, waitTimeoutMs: null } };
const redlockClients = (b: ScenarioBuilder): ScenarioBuilder =>
  b
    .client('client1', { startMs: 10, ttlMs: 10_000, workMs: 6000, requestTimeoutMs: 50 })
    .client('client2', { startMs: 2010, ttlMs: 10_000, workMs: 1000, requestTimeoutMs: 50, ...retry(3, 2000) });
const fiveNodes = ['A', 'B', 'C', 'D', 'E'].map((n) => ({ name: n, machine: `host${n}` }));

/** Every built-in scenario, written with the builder. */
const BUILT: Record<string, ScenarioBuilder> = {
  'pause-past-expiry': scenario('pause-past-expiry')
    .seed(7)
    .client('A', { ttlMs: 10_000, workMs: 3000 })
    .client('B', { startMs: 5000, ttlMs: 10_000, workMs: 1000, ...retry(10, 2000) })
    .redis({ fencingTokenStart: 33 })
    .pause('A', { at: 1000, for: 15_000 }),
  'crash-without-release': scenario('crash-without-release')
    .seed(3)
    .client('A', { ttlMs: 5000, workMs: 2000 })
    .client('B', { startMs: 2000, ttlMs: 5000, workMs: 1000, ...retry(5, 1500) })
    .redis()
    .crash('A', { at: 1000 }),
  'exists-then-set-race': scenario('exists-then-set-race')
    .seed(11)
    .client('A', { ttlMs: 10_000, workMs: 500, acquire: { method: 'exists-then-set' } })
    .client('B', { ttlMs: 10_000, workMs: 800, acquire: { method: 'exists-then-set' } })
    .redis(),
  'release-by-plain-del': scenario('release-by-plain-del')
    .seed(5)
    .client('A', { ttlMs: 2000, workMs: 3000, checkRemaining: true, release: { method: 'plain-del' } })
    .client('B', { startMs: 1000, ttlMs: 5000, workMs: 2500, acquire: { retries: 10, retryDelayMs: 500 } })
    .client('C', { startMs: 2700, ttlMs: 5000, workMs: 500, acquire: { retries: 10, retryDelayMs: 250 } })
    .redis(),
  'redis-restart-without-persistence': scenario('redis-restart-without-persistence')
    .seed(7)
    .client('A', { ttlMs: 30_000, workMs: 6000 })
    .client('B', { startMs: 1000, ttlMs: 30_000, workMs: 1000, ...retry(10, 1000) })
    .redis({ machine: 'cache', persistence: 'none' })
    .restart({ at: 2500, for: 500 }),
  'redis-aof-token-reuse': scenario('redis-aof-token-reuse')
    .seed(5)
    .client('A', { startMs: 300, ttlMs: 10_000, workMs: 800, writes: 2 })
    .client('B', { startMs: 1100, ttlMs: 10_000, workMs: 100 })
    .redis({ persistence: 'aof-everysec' })
    .resource({ fencing: true })
    .restart({ at: 800, for: 100 }),
  'fencing-newer-token-unseen': scenario('fencing-newer-token-unseen')
    .seed(7)
    .client('A', { ttlMs: 10_000, workMs: 3000 })
    .client('B', { startMs: 5000, ttlMs: 20_000, workMs: 10_000, ...retry(10, 2000) })
    .redis({ fencingTokenStart: 33 })
    .resource({ fencing: true })
    .pause('A', { at: 1000, for: 15_000 }),
  'deploy-splits-fencing-counter': scenario('deploy-splits-fencing-counter')
    .client('A', { ttlMs: 10_000, workMs: 3000 })
    .client('B', { startMs: 1000, ttlMs: 10_000, workMs: 500 })
    .redis({ keyPrefix: 'v1:', fencingTokenStart: 33 })
    .resource({ fencing: true })
    .deploy(['B'], { keyPrefix: 'v2:' }, { at: 500 }),
  'flock-across-servers': scenario('flock-across-servers')
    .client('A', { workMs: 1000, ...blocking })
    .client('B', { startMs: 200, workMs: 1000, ...blocking })
    .machine('db')
    .flock({ lockDir: '/var/lock/app' })
    .resource({ machine: 'db' }),
  'deploy-config-change': scenario('deploy-config-change')
    .client('A', { workMs: 3000, ...blocking })
    .client('B', { machine: 'app1', startMs: 1000, workMs: 500, ...blocking })
    .flock({ lockDir: '/var/www/releases/41/var/lock' })
    .resource({ machine: 'db' })
    .deploy(['B'], { lockDir: '/var/www/releases/42/var/lock' }, { at: 500 }),
  'semaphore-two-containers': scenario('semaphore-two-containers')
    .client('A', { machine: 'container-a', workMs: 1000, ...blocking })
    .client('B', { machine: 'container-b', startMs: 200, workMs: 1000, ...blocking })
    .semaphore()
    .resource({ machine: 'db', fencing: false }),
  'memcached-restart': scenario('memcached-restart')
    .seed(7)
    .client('A', { ttlMs: 30_000, workMs: 6000 })
    .client('B', { startMs: 1000, ttlMs: 30_000, workMs: 1000, ...retry(10, 1000) })
    .memcached({ machine: 'cache' })
    .restart({ at: 2500, for: 500 }),
  'memcached-eviction': scenario('memcached-eviction')
    .seed(7)
    .client('A', { ttlMs: 60_000, workMs: 10_000 })
    .client('B', { startMs: 1000, ttlMs: 60_000, workMs: 1000, ...retry(15, 1000) })
    .memcached({ machine: 'cache', memoryBytes: 64 * 1024 * 1024 })
    .memoryPressure({ at: 1000, for: 8000, writesPerSec: 20_000, itemBytes: 1024 }),
  'sql-clock-skew': scenario('sql-clock-skew')
    .seed(7)
    .client('A', { ttlMs: 10_000, workMs: 7000, checkRemaining: true })
    .client('B', { startMs: 5000, ttlMs: 10_000, workMs: 1000, ...retry(10, 1000) })
    .machine('app2', { clockOffsetMs: 6000 })
    .sql({ clock: 'client' }),
  'mongodb-client-clock-skew': scenario('mongodb-client-clock-skew')
    .seed(7)
    .client('A', { ttlMs: 10_000, workMs: 7000, checkRemaining: true })
    .client('B', { startMs: 5000, ttlMs: 10_000, workMs: 1000, ...retry(10, 1000) })
    .machine('app2', { clockOffsetMs: 6000 })
    .mongodb(),
  'postgres-connection-loss': scenario('postgres-connection-loss')
    .seed(5)
    .client('A', { workMs: 5000 })
    .client('B', { startMs: 500, workMs: 1000, ...nativeBlocking })
    .postgres()
    .loseConnection('A', { at: 2500 }),
  'zookeeper-session-expiry': scenario('zookeeper-session-expiry')
    .seed(11)
    .client('A', { workMs: 3000 })
    .client('B', { startMs: 2000, workMs: 1000, ...retry(10, 2000) })
    .zookeeper({ machine: 'zk', tickMs: 2000, sessionTimeoutMs: 6000, zxidStart: 33 })
    .pause('A', { at: 1000, for: 15_000 }),
  'etcd-revision-fencing': scenario('etcd-revision-fencing')
    .seed(13)
    .client('A', { ttlMs: 5000, workMs: 3000 })
    .client('B', { startMs: 2000, ttlMs: 5000, workMs: 1000, ...nativeBlocking })
    .etcd({ machine: 'etcd1', revisionStart: 33 })
    .fencing()
    .pause('A', { at: 1000, for: 10_000 }),
  'redlock-clock-jump': redlockClients(scenario('redlock-clock-jump').seed(3))
    .redlock({ nodes: fiveNodes })
    .resource({ machine: 'storage' })
    .partition([['client1'], ['hostD', 'hostE']], { at: 0, for: 1000 })
    .clockJump('hostC', { at: 1000, byMs: 20_000 })
    .partition([['client2'], ['hostA', 'hostB']], { at: 2000, for: 1000 }),
  'redlock-restart-without-delay': redlockClients(scenario('redlock-restart-without-delay').seed(3))
    .redlock({ persistence: 'none', restartDelayMs: 0, nodes: fiveNodes })
    .resource({ machine: 'storage' })
    .partition([['app1'], ['hostD', 'hostE']], { at: 0, for: 1000 })
    .restart({ node: 'C', at: 1000, for: 100 })
    .partition([['app2'], ['hostA', 'hostB']], { at: 2000, for: 1000 }),
  'combined-unanimous-node-down': scenario('combined-unanimous-node-down')
    .client('A', { startMs: 100, ttlMs: 10_000, workMs: 1000, ...retry(1, 1000) })
    .client('B', { startMs: 300, ttlMs: 10_000, workMs: 1000, ...retry(1, 1000) })
    .combined(
      'unanimous',
      [1, 2, 3].map((i) => ({ kind: 'redis', name: `r${i}`, machine: `db${i}` })),
    )
    .resource({ machine: 'db1' })
    .restart({ node: 'r2', at: 0, for: 5000 }),
  'remaining-lifetime-refresh': scenario('remaining-lifetime-refresh')
    .seed(5)
    .client('A', {
      ttlMs: 3000,
      steps: [
        { step: 'acquire' },
        {
          step: 'repeat',
          steps: [
            {
              step: 'repeat',
              times: 8,
              steps: [
                {
                  step: 'if',
                  condition: { remainingLifetimeBelowMs: 1500 },
                  then: [
                    { step: 'if', condition: { isExpired: true }, then: [{ step: 'throw', message: 'lock lost during the overall process' }] },
                    { step: 'refresh' },
                  ],
                },
                { step: 'work', durationMs: 1000 },
                { step: 'write' },
              ],
            },
          ],
          finally: [{ step: 'release' }],
        },
      ],
    })
    .client('B', {
      startMs: 500,
      ttlMs: 3000,
      steps: [{ step: 'acquire', blocking: true, waitTimeoutMs: 20000 }, { step: 'work', durationMs: 500 }, { step: 'write' }, { step: 'release' }],
    })
    .redis(),
  'lock-expired-on-acquire': scenario('lock-expired-on-acquire')
    .seed(3)
    .client('A', {
      ttlMs: 1000,
      requestTimeoutMs: 3000,
      steps: [{ step: 'acquire' }, { step: 'repeat', steps: [{ step: 'work', durationMs: 500 }, { step: 'write' }], finally: [{ step: 'release' }] }],
      startMs: 10,
    })
    .client('B', {
      startMs: 800,
      ttlMs: 1000,
      steps: [{ step: 'acquire', blocking: true, waitTimeoutMs: 10000 }, { step: 'work', durationMs: 300 }, { step: 'write' }, { step: 'release' }],
    })
    .redis({ fencingTokenStart: 33 })
    .latencySpike({ at: 0, for: 2000, extraMs: 700, machines: ['app1'] }),
  'auto-release-fork': scenario('auto-release-fork')
    .seed(9)
    .client('A', {
      ttlMs: 30000,
      steps: [
        { step: 'acquire' },
        {
          step: 'repeat',
          steps: [{ step: 'fork', steps: [{ step: 'work', durationMs: 200 }] }, { step: 'work', durationMs: 3000 }, { step: 'write' }],
          finally: [{ step: 'release' }],
        },
      ],
    })
    .client('B', {
      startMs: 100,
      ttlMs: 30000,
      steps: [{ step: 'acquire', blocking: true, waitTimeoutMs: 20000 }, { step: 'work', durationMs: 1000 }, { step: 'write' }, { step: 'release' }],
    })
    .redis({ fencingTokenStart: 33 }),
  'finally-after-exception': scenario('finally-after-exception')
    .seed(4)
    .client('A', {
      ttlMs: 10000,
      steps: [
        {
          step: 'repeat',
          catch: true,
          steps: [
            { step: 'acquire' },
            { step: 'work', durationMs: 500 },
            { step: 'throw', message: 'the job failed halfway' },
            { step: 'write' },
            { step: 'release' },
          ],
        },
        { step: 'sleep', durationMs: 15000 },
      ],
    })
    .client('B', {
      startMs: 1000,
      ttlMs: 10000,
      steps: [{ step: 'acquire', blocking: true, waitTimeoutMs: 30000 }, { step: 'work', durationMs: 500 }, { step: 'write' }, { step: 'release' }],
    })
    .redis(),
  'fencing-too-late': scenario('fencing-too-late')
    .seed(7)
    .client('A', { ttlMs: 10000, workMs: 3000 })
    .client('B', { startMs: 5000, ttlMs: 10000, workMs: 5000, acquire: { mode: 'try', retries: 10, retryDelayMs: 2000 } })
    .redis({ fencingTokenStart: 33 })
    .fencing()
    .pause('A', { at: 1000, for: 12_000 }),
  'never-expiring-lock': scenario('never-expiring-lock')
    .seed(2)
    .client('A', { ttlMs: 5000, workMs: 3000 })
    .client('B', { startMs: 1000, ttlMs: 5000, workMs: 500, acquire: { mode: 'try', retries: 20, retryDelayMs: 1000 } })
    .lockRow()
    .crash('A', { at: 1500 }),
  'zookeeper-restart': scenario('zookeeper-restart')
    .seed(6)
    .client('A', { workMs: 20000 })
    .client('B', { startMs: 2000, workMs: 1000, acquire: { mode: 'try', retries: 15, retryDelayMs: 2000 } })
    .zookeeper({ machine: 'zk1' })
    .machine('zk2')
    .machine('zk3')
    .restart({ at: 3000, for: 12_000 }),
  'flock-tmp-cleanup': scenario('flock-tmp-cleanup')
    .seed(8)
    .client('A', { machine: 'app1', workMs: 6000 })
    .client('B', { machine: 'app1', startMs: 4000, workMs: 1000, acquire: { mode: 'blocking' } })
    .flock({ lockDir: '/tmp/locks' })
    .resource({ machine: 'app1' })
    .cleanLockFiles('app1', { at: 3000, dir: '/tmp' }),
  'random-gc-pauses': ['A', 'B', 'C']
    .reduce(
      (b, name) =>
        b.client(name, {
          ttlMs: 30000,
          acquire: { mode: 'blocking' },
          workTime: { distribution: 'exponential', meanMs: 2000 },
          pauseAfterAcquire: { probability: 0.01, duration: { distribution: 'long-tail', minMs: 50, maxMs: 60000 } },
          iterations: 20,
          thinkMs: 500,
        }),
      scenario('random-gc-pauses').seed(4).budget({ maxTimeMs: 7_200_000 }),
    )
    .redis(),
};

describe('scenario(): a scenario built in code', () => {
  it('writes every built-in scenario as the same document the JSON file describes, store kinds and faults alike', () => {
    expect(Object.keys(BUILT).sort()).toEqual([...BUILTIN_NAMES].sort());
    for (const name of BUILTIN_NAMES) {
      const fromFile = normalizeScenario(BUILTIN_SCENARIOS[name], name);
      expect({ ...BUILT[name]!.build(), summary: '' }, name).toEqual({ ...fromFile, summary: '' });
    }
  });

  it('runs like the file it stands for: same seed, same trace', () => {
    const built = BUILT['pause-past-expiry']!.summary(normalizeScenario(BUILTIN_SCENARIOS['pause-past-expiry'], 'x').summary);
    const fromBuilder = built.run({ seed: 7 });
    const fromFile = normalizeScenario(BUILTIN_SCENARIOS['pause-past-expiry'], 'x');
    expect(fromBuilder.trace.scenario).toEqual(fromFile);
    expect(fromBuilder.verdict.outcome).toBe('unsafe');
    expect(built.run({ seed: 7 }).hash).toBe(fromBuilder.hash);
    expect(built.run({ seed: 8 }).hash).not.toBe(fromBuilder.hash);
  });

  it('gives each client a machine of its own and puts single-node stores on "db", in the order they are named', () => {
    const doc = scenario('defaults').client('A').client('B', { machine: 'shared' }).client('C').redis().toJSON();
    expect(doc.machines.map((m) => m.name)).toEqual(['app1', 'shared', 'app3', 'db']);
    expect(doc.clients.map((c) => [c.name, c.machine])).toEqual([
      ['A', 'app1'],
      ['B', 'shared'],
      ['C', 'app3'],
    ]);
    expect(doc.store).toEqual({ kind: 'redis', name: 'redis', machine: 'db' });
  });

  it('writes its keys in the order of the scenario format, leaving out what was never set', () => {
    const doc = scenario('order').fencing().redis().client('A').seed(3).summary('s').pause('A', { at: 1, for: 2 }).toJSON();
    expect(Object.keys(doc)).toEqual(['name', 'summary', 'seed', 'machines', 'store', 'resource', 'clients', 'faults']);
    expect(JSON.parse(JSON.stringify(scenario('order').redis().client('A')))).toEqual(scenario('order').redis().client('A').toJSON());
  });

  it('returns a new builder from every call, so a base scenario can be varied', () => {
    const base = scenario('base').redis().client('A');
    const fenced = base.fencing();
    expect(base.toJSON().resource).toBeUndefined();
    expect(fenced.toJSON().resource).toEqual({ fencing: true });
    expect(base.crash('A', { at: 5 }).toJSON().faults).toHaveLength(1);
    expect(base.toJSON().faults).toEqual([]);
  });

  it('lets a client name stand for its machine in machine faults', () => {
    const doc = scenario('clocks')
      .client('A')
      .client('B')
      .redis()
      .clockJump('A', { at: 100, byMs: -500 })
      .clockDrift('db', { at: 200, driftPpm: 300 })
      .latencySpike({ at: 300, for: 400, extraMs: 50, machines: ['B'] })
      .latencySpike({ at: 800, for: 100, extraMs: 5 })
      .partition([['A', 'B'], ['db']], { at: 1000, for: 10 })
      .toJSON();
    expect(doc.faults).toEqual([
      { kind: 'clock-jump', machine: 'app1', atMs: 100, byMs: -500 },
      { kind: 'clock-drift', machine: 'db', atMs: 200, driftPpm: 300 },
      { kind: 'latency-spike', atMs: 300, durationMs: 400, extraMs: 50, machines: ['app2'] },
      { kind: 'latency-spike', atMs: 800, durationMs: 100, extraMs: 5, machines: null },
      { kind: 'partition', atMs: 1000, durationMs: 10, groups: [['app1', 'app2'], ['db']] },
    ]);
  });

  it('writes the store-specific faults as the format does, aimed at the single node unless told', () => {
    const memcached = scenario('m').client('A').memcached().evict({ at: 10 }).evict({ at: 20, key: 'job' }).toJSON();
    expect(memcached.faults).toEqual([
      { kind: 'eviction', target: 'memcached', atMs: 10, key: null },
      { kind: 'eviction', target: 'memcached', atMs: 20, key: 'job' },
    ]);
    expect(scenario('z').client('A').zookeeper({ recipe: true }).expireSession('A', { at: 5 }).build()).toMatchObject({
      store: { kind: 'zookeeper-recipe', name: 'zookeeper' },
      faults: [{ kind: 'session-expiry', target: 'A', atMs: 5 }],
    });
    expect(scenario('s').client('A').semaphore().removeIpc('A', { at: 7 }).build().faults).toEqual([{ kind: 'ipc-removal', machine: 'app1', atMs: 7 }]);
    expect(scenario('r').client('A').redlock().build().store).toMatchObject({
      nodes: [
        { name: 'redis1', machine: 'db1' },
        { name: 'redis2', machine: 'db2' },
        { name: 'redis3', machine: 'db3' },
      ],
    });
  });

  it('reports a mistake as the normalizer does a file: the scenario, the field, what was expected', () => {
    const bad = scenario('typo').redis().client('A', { ttlMs: -5 });
    expect(() => bad.build()).toThrow(InputError);
    expect(() => bad.build()).toThrow(/^scenario "typo" \(built in code\): clients\[0\]\.ttlMs: /);
    expect(() => scenario('no-store').client('A').run()).toThrow(/scenario "no-store" \(built in code\)(: store)?: .*store/);
    expect(() =>
      scenario('shared')
        .memcached()
        .client('A', { acquire: { shared: true }, writes: 2 })
        .build(),
    ).toThrow(/clients\[0\]\.writes: a client holding a shared \(read\) lock only reads/);
  });

  it('runDocument, handed a scenario where its source belongs, says what the source is', () => {
    const doc = BUILTIN_SCENARIOS['pause-past-expiry'];
    const call = () => runDocument(doc as unknown as RunSource);
    expect(call).toThrow(InputError);
    expect(call).toThrow(
      'runDocument: source: expected { document, ref, label }: the scenario document, the name `locklab run` knows it by (or undefined), and a label for messages',
    );
    const run = runDocument({ document: doc, ref: 'pause-past-expiry', label: 'built-in pause-past-expiry' }, { seed: 7 });
    expect(run.verdict.outcome).toBe('unsafe');
  });

  it('refuses a seed the reproduction could not pass to locklab run --seed, naming the scenario and the field', () => {
    const base = scenario('seeded').redis().client('A', { ttlMs: 1000 });
    for (const seed of [1.5, -1, Number.NaN, 4_294_967_296, '7' as unknown as number]) {
      expect(() => base.run({ seed })).toThrow(InputError);
      expect(() => base.run({ seed })).toThrow(/^scenario "seeded" \(built in code\): seed: expected a whole number from 0 to 4294967295, got /);
    }
    expect(() => base.run({ seed: 1.5 })).toThrow(/got 1\.5$/);
    const doc = BUILTIN_SCENARIOS['pause-past-expiry'];
    expect(() => runDocument({ document: doc, ref: 'pause-past-expiry', label: 'pause-past-expiry' }, { seed: -3 })).toThrow(
      'pause-past-expiry: seed: expected a whole number from 0 to 4294967295, got -3',
    );
    const edge = base.run({ seed: 4_294_967_295 });
    expect(edge.seed).toBe(4_294_967_295);
    expect(edge.reproduce).toMatch(/--seed 4294967295$/);
  });

  it('takes every client field of the format, random workloads included', () => {
    const built = scenario('workload')
      .redis()
      .client('A', { workTime: { distribution: 'exponential', meanMs: 200 }, crashRatePerS: 0.5, iterations: 3 })
      .client('B', { pauseAfterAcquire: { probability: 0.5, duration: { distribution: 'fixed', ms: 1500 } } })
      .build();
    expect(built.clients[0]).toMatchObject({ workTime: { distribution: 'exponential', meanMs: 200 }, crashRatePerS: 0.5, iterations: 3 });
    expect(built.clients[1]).toMatchObject({ pauseAfterAcquire: { probability: 0.5, duration: { distribution: 'fixed', ms: 1500 } } });
  });

  it('adds no machine for a fault, so a misspelt one is reported', () => {
    expect(() => scenario('typo').client('A').redis().clockJump('dbb', { at: 1, byMs: 5 }).build()).toThrow(
      'scenario "typo" (built in code): faults[0].machine: no machine named "dbb" (machines: app1, db)',
    );
  });

  it('asks which node to restart when the store has several', () => {
    expect(() => scenario('quorum').client('A').redlock().restart({ at: 1, for: 1 })).toThrow(/restart: name the store node/);
    expect(() => scenario('switched').client('A').redis().redlock().restart({ at: 1, for: 1 })).toThrow(/restart: name the store node/);
    expect(scenario('switched').client('A').redlock().memcached().restart({ at: 1, for: 1 }).build().faults).toMatchObject([{ target: 'memcached' }]);
    expect(scenario('quorum').client('A').redlock().restart({ node: 'redis2', at: 1, for: 1 }).build().faults).toEqual([
      { kind: 'store-restart', target: 'redis2', atMs: 1, downMs: 1 },
    ]);
  });
});
