import { describe, expect, it } from 'vitest';
import { InputError } from '../sim/errors.js';
import { runScenario } from '../sim/run.js';
import { normalizeScenario } from '../sim/scenario/normalize.js';

const scenario = (faults: unknown[]) => ({
  name: 'redis-prefix-deploy',
  machines: [{ name: 'app1' }, { name: 'app2' }, { name: 'db' }],
  store: { kind: 'redis', machine: 'db', keyPrefix: 'v1:' },
  clients: [
    { name: 'A', machine: 'app1', ttlMs: 10000, workMs: 3000 },
    { name: 'B', machine: 'app2', startMs: 1000, ttlMs: 10000, workMs: 500, acquire: { retries: 5, retryDelayMs: 1000 } },
  ],
  faults,
});

describe('deploy with a changed store configuration', () => {
  it('a client deployed with a new key prefix takes "the" lock beside the old one, and the checker judges the key both protect', () => {
    const doc = runScenario(normalizeScenario(scenario([{ kind: 'deploy', atMs: 500, clients: ['B'], store: { keyPrefix: 'v2:' } }]), 's'));
    const granted = doc.events.filter((e) => e.kind === 'lock.granted').map((e) => [e.owner, e.key]);
    expect(granted).toEqual([
      ['A:1', 'v1:job'],
      ['B:1', 'v2:job'],
    ]);
    expect(doc.verdict.doubleOwnership.map((d) => d.clients)).toEqual([['A', 'B']]);
    expect(doc.verdict.staleWrites).toMatchObject([{ client: 'A', accepted: true, cause: { kind: 'superseded', client: 'B' } }]);
    expect(doc.verdict.outcome).toBe('unsafe');
  });

  it('without the deploy the same clients take turns', () => {
    expect(runScenario(normalizeScenario(scenario([]), 's')).verdict.outcome).toBe('safe');
  });

  it('refuses a patch naming a field the store does not have, or a value of the wrong type', () => {
    const bad = (patch: Record<string, unknown>) => () => normalizeScenario(scenario([{ kind: 'deploy', atMs: 1, clients: ['B'], store: patch }]), 'f.json');
    expect(bad({ keyPrefx: 'x' })).toThrow(
      new InputError('f.json', [
        {
          path: 'faults[0].store.keyPrefx',
          message: 'a deploy cannot change "keyPrefx" of the redis store (fields: machine, persistence, fencingTokenStart, keyPrefix)',
        },
      ]),
    );
    expect(bad({ keyPrefix: 5 })).toThrow('f.json: faults[0].store.keyPrefix: expected a string, got 5');
    expect(() => normalizeScenario(scenario([{ kind: 'deploy', atMs: 1, clients: ['Z'], store: {} }]), 'f.json')).toThrow(
      'f.json: faults[0].clients[0]: no client named "Z" (clients: A, B)',
    );
  });

  it('refuses a store fault the store does not have', () => {
    expect(() => normalizeScenario(scenario([{ kind: 'eviction', atMs: 1, target: 'redis' }]), 'f.json')).toThrow(
      'f.json: faults[0].kind: the redis store has no fault "eviction" (it takes: pause, crash, partition, clock-jump, clock-drift, latency-spike, store-restart, deploy)',
    );
  });
});
