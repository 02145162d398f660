import { describe, expect, it } from 'vitest';
import { scenario } from 'locklab/testing';
import { InputError } from '../sim/errors.js';
import { normalizeScenario } from '../sim/scenario/normalize.js';

// A deploy switches B to a new Redis key prefix; A, started before it, keeps the old one.
const prefixed = scenario('redis-prefix-deploy')
  .client('A', { ttlMs: 10_000, workMs: 3000 })
  .client('B', { startMs: 1000, ttlMs: 10_000, workMs: 500, acquire: { retries: 5, retryDelayMs: 1000 } })
  .redis({ keyPrefix: 'v1:' });
const withFaults = (faults: unknown[]) => ({ ...prefixed.toJSON(), faults });

describe('deploy with a changed store configuration', () => {
  it('a client deployed with a new key prefix takes "the" lock beside the old one, and the checker judges the key both protect', () => {
    const run = prefixed.deploy(['B'], { keyPrefix: 'v2:' }, { at: 500 }).run();
    const doc = run.trace;
    const granted = doc.events.filter((e) => e.kind === 'lock.granted').map((e) => [e.owner, e.key]);
    expect(granted).toEqual([
      ['A:1', 'v1:job'],
      ['B:1', 'v2:job'],
    ]);
    expect(run).toHaveDoubleOwnership('A', 'B');
    expect(doc.verdict.staleWrites).toMatchObject([{ client: 'A', accepted: true, cause: { kind: 'superseded', client: 'B' } }]);
    expect(run).toBeUnsafe();
  });

  it('a client deployed while it waits asks for the new key at its next poll', () => {
    const run = prefixed.deploy(['B'], { keyPrefix: 'v2:' }, { at: 1500 }).run();
    const events = run.trace.events;
    // B's first poll (at 1 s) is refused on v1:job, A's; the poll after the deploy asks for v2:job, which nobody holds.
    expect(events.filter((e) => e.kind === 'acquire.denied' && e.actor === 'B')).toHaveLength(1);
    const granted = events.filter((e) => e.kind === 'lock.granted').map((e) => [e.owner, e.key, e.timeUs < 3_000_000]);
    expect(granted).toEqual([
      ['A:1', 'v1:job', true],
      ['B:1', 'v2:job', true],
    ]);
  });

  it('without the deploy the same clients take turns', () => {
    expect(prefixed.run()).toBeSafe();
  });

  it('refuses a patch naming a field the store does not have, or a value of the wrong type', () => {
    const bad = (patch: Record<string, unknown>) => () => normalizeScenario(withFaults([{ kind: 'deploy', atMs: 1, clients: ['B'], store: patch }]), 'f.json');
    expect(bad({ keyPrefx: 'x' })).toThrow(
      new InputError('f.json', [
        {
          path: 'faults[0].store.keyPrefx',
          message: 'a deploy cannot change "keyPrefx" of the redis store (fields: machine, persistence, fencingTokenStart, keyPrefix)',
        },
      ]),
    );
    expect(bad({ keyPrefix: 5 })).toThrow('f.json: faults[0].store.keyPrefix: expected a string, got 5');
    expect(() => normalizeScenario(withFaults([{ kind: 'deploy', atMs: 1, clients: ['Z'], store: {} }]), 'f.json')).toThrow(
      'f.json: faults[0].clients[0]: no client named "Z" (clients: A, B)',
    );
  });

  it('refuses a store fault the store does not have', () => {
    expect(() => normalizeScenario(withFaults([{ kind: 'eviction', atMs: 1, target: 'redis' }]), 'f.json')).toThrow(
      'f.json: faults[0].kind: the redis store has no fault "eviction" (it takes: pause, crash, partition, clock-jump, clock-drift, latency-spike, store-restart, deploy)',
    );
  });
});
