import { describe, expect, it } from 'vitest';
import { runScenario } from '../sim/run.js';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import { STORE_KINDS, starterStore } from '../sim/stores/registry.js';

describe('starter stores', () => {
  it('every store kind has a minimal form that validates and runs on the scenario it is put into', () => {
    for (const machines of [['app1', 'app2', 'db'], ['solo']]) {
      for (const k of STORE_KINDS) {
        const scenario = normalizeScenario(
          {
            name: 'starter',
            machines: machines.map((name) => ({ name })),
            store: starterStore(k.kind, machines),
            clients: [{ name: 'A', machine: machines[0]!, ttlMs: 5000 }],
          },
          `starter ${k.kind}`,
        );
        expect(scenario.store.kind).toBe(k.kind);
        const doc = runScenario(scenario);
        expect(doc.stop.reason, k.kind).toBe('completed');
        expect(
          doc.events.some((e) => e.kind === 'acquire.ok'),
          k.kind,
        ).toBe(true);
      }
    }
  });
});
