import { describe, expect, it } from 'vitest';
import { InputError } from '../../sim/errors.js';
import { runJob } from '../../sim/run.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { applyOverrides } from '../../sim/scenario/set.js';
import type { Scenario } from '../../sim/scenario/types.js';
import { BUILTIN_SCENARIOS } from '../../sim/scenarios/index.js';
import { defaultRange, leadChoice, paramChoices } from '../../web/odds/params.js';

/* The Odds view offers parameters to sweep. Each must be one the run reads, and the range it starts from must be one the scenario accepts. */

const builtin = (name: string): Scenario => normalizeScenario(BUILTIN_SCENARIOS[name], name);
/** The run's events, without the scenario they ran: what a sweep's line is drawn from. */
const events = (s: Scenario): string => JSON.stringify(runJob(s, s.seed, { trace: true, hash: false }).events);
const paths = (s: Scenario): string[] => paramChoices(s).map((c) => c.path);
const choice = (s: Scenario, path: string) => paramChoices(s).find((c) => c.path === path);

describe("the Odds view's parameters", () => {
  it('every one, at both ends of the range it starts from, is a scenario the lab accepts, for every built-in scenario', () => {
    const refused: string[] = [];
    for (const name of Object.keys(BUILTIN_SCENARIOS)) {
      const s = builtin(name);
      for (const c of paramChoices(s)) {
        const ends = c.kind === 'boolean' ? [false, true] : Object.values(defaultRange(c.value as number, c.bounds)).slice(0, 2);
        for (const value of ends) {
          try {
            applyOverrides(s, [{ path: c.path, value }]);
          } catch (err) {
            if (!(err instanceof InputError)) throw err;
            refused.push(`${name} ${c.path}=${String(value)}: ${err.message}`);
          }
        }
      }
    }
    expect(refused).toEqual([]);
  });

  it('a drawn work time is varied by its mean, and the GC pause by its longest value; workMs, which the run does not read, is not offered', () => {
    const s = builtin('random-gc-pauses');
    expect(choice(s, 'clients[*].workTime.meanMs')).toMatchObject({ label: 'mean work time of every client (ms)', value: 2000 });
    expect(choice(s, 'clients[*].pauseAfterAcquire.duration.maxMs')).toMatchObject({ label: 'longest GC pause of every client (ms)', value: 60_000 });
    expect(paths(s)).toContain('clients.B.pauseAfterAcquire.duration.maxMs');
    expect(paths(s).filter((p) => p.endsWith('workMs'))).toEqual([]);
    expect(events(applyOverrides(s, [{ path: 'clients[*].workTime.meanMs', value: 500 }]))).not.toBe(events(s));
  });

  it('a client written as steps is varied by its work steps', () => {
    const s = builtin('finally-after-exception');
    expect(choice(s, 'clients.A.steps[0].steps[1].durationMs')).toMatchObject({ label: 'work time of A (ms)', value: 500 });
    expect(paths(s)).not.toContain('clients.A.workMs');
    expect(events(applyOverrides(s, [{ path: 'clients.A.steps[0].steps[1].durationMs', value: 5000 }]))).not.toBe(events(s));
  });

  it('a store whose locks never expire offers no TTL, and one on the clients’ own machines no network', () => {
    const flock = builtin('flock-across-servers');
    // Why: flock reads neither, so the runs are the same and the plot a flat line.
    expect(events(applyOverrides(flock, [{ path: 'clients[*].ttlMs', value: 1000 }]))).toBe(events(flock));
    expect(paths(flock).filter((p) => p.includes('ttlMs') || p.startsWith('network.'))).toEqual([]);
    const zk = builtin('zookeeper-session-expiry');
    expect(paths(zk).filter((p) => p.includes('ttlMs'))).toEqual([]);
    // ZooKeeper's lease is its session: the range offered stays within the 2 to 20 ticks the server allows.
    const session = choice(zk, 'store.sessionTimeoutMs')!;
    expect(session.label).toBe('session timeout (ms)');
    expect(defaultRange(session.value as number, session.bounds)).toEqual({ from: 4000, to: 9000, step: 500 });
    expect(paths(builtin('pause-past-expiry'))).toEqual(expect.arrayContaining(['clients[*].ttlMs', 'network.latencyMaxMs']));
    // A share starts from 0 to 20 %, not from -500.
    const loss = choice(builtin('pause-past-expiry'), 'network.loss')!;
    expect(defaultRange(loss.value as number, loss.bounds)).toEqual({ from: 0, to: 0.2, step: 0.02 });
  });

  it('each fault is varied by its size, or by when it strikes when it has none', () => {
    expect(choice(builtin('redis-aof-token-reuse'), 'faults[0].downMs')).toMatchObject({ label: 'restart of redis at 0.8 s, time down (ms)', value: 100 });
    expect(paths(builtin('redlock-restart-without-delay'))).toEqual(expect.arrayContaining(['faults[1].downMs', 'store.restartDelayMs']));
    expect(paths(builtin('redlock-clock-jump'))).not.toContain('store.restartDelayMs');
    expect(paths(builtin('lock-expired-on-acquire'))).toEqual(expect.arrayContaining(['faults[0].durationMs', 'faults[0].extraMs']));
    expect(paths(builtin('memcached-eviction'))).toEqual(expect.arrayContaining(['faults[0].writesPerSec', 'store.memoryBytes']));
    expect(choice(builtin('crash-without-release'), 'faults[0].atMs')).toMatchObject({ label: "time of A's crash (ms)", value: 1000 });
  });
});

describe('workMs beside workTime', () => {
  it('is refused, naming the field to change instead, in a file and in --set', () => {
    const raw = BUILTIN_SCENARIOS['random-gc-pauses'] as { clients: object[] };
    const doc = { ...raw, clients: raw.clients.map((c, i) => (i === 1 ? { ...c, workMs: 300 } : c)) };
    expect(() => normalizeScenario(doc, 'gc.json')).toThrow(
      "gc.json: clients[1].workMs: B's work time is drawn from workTime, so workMs is not used: change workTime instead (clients[1].workTime.meanMs)",
    );
    expect(() => applyOverrides(builtin('random-gc-pauses'), [{ path: 'clients.A.workMs', value: 5000 }])).toThrow(
      /--set: clients\.A\.workMs: A's work time is drawn from workTime/,
    );
  });
});

describe('the parameter a sweep starts from', () => {
  const lead = (name: string): string | undefined => leadChoice(paramChoices(builtin(name)))?.path;
  it('is the size of the fault the story turns on, else the TTL the clients share', () => {
    expect(lead('pause-past-expiry')).toBe('faults[0].durationMs');
    expect(lead('zookeeper-session-expiry')).toBe('faults[0].durationMs');
    expect(lead('redis-aof-token-reuse')).toBe('faults[0].downMs');
    expect(lead('random-gc-pauses')).toBe('clients[*].ttlMs');
    expect(lead('crash-without-release')).toBe('clients[*].ttlMs');
    expect(lead('flock-across-servers')).toBe('clients.A.workMs');
  });
});
