import { normalizeScenario } from '../sim/scenario/normalize.js';
import type { Scenario } from '../sim/scenario/types.js';

export interface SoakOptions {
  readonly minutes: number;
  readonly clients: number;
}

/** The soak's scenario: `clients` looping workers on one key guarding one resource, with pauses and restarts through the whole run. */
export function soakScenario(o: SoakOptions): Scenario {
  const runMs = Math.round(o.minutes * 60_000);
  const names = Array.from({ length: o.clients }, (_, i) => `C${String(i + 1).padStart(2, '0')}`);
  const faults: unknown[] = [];
  // One lock has one holder at a time: a fifth of the clients stopped at once hits it about one time in five
  // (fewer on long runs, within a scenario's 1,000 faults).
  const slots = Math.max(1, Math.floor((runMs - 7_500) / 10_000));
  const group = Math.max(1, Math.min(Math.round(names.length / 5), Math.floor(900 / slots)));
  for (let at = 2_500, k = 0; at < runMs - 5_000; at += 10_000, k++) {
    for (let j = 0; j < group; j++) faults.push({ kind: 'pause', target: names[(k * group + j) % names.length], atMs: at, durationMs: 3_000 });
  }
  for (let at = 60_000; at < runMs - 5_000; at += 60_000) faults.push({ kind: 'store-restart', target: 'redis', atMs: at, downMs: 500 });
  return normalizeScenario(
    {
      name: 'soak',
      seed: 1,
      machines: [...Array.from({ length: 5 }, (_, i) => ({ name: `app${i + 1}` })), { name: 'db' }],
      store: { kind: 'redis', machine: 'db', persistence: 'aof-always' },
      resource: { machine: 'db', fencing: true },
      clients: names.map((name, i) => ({
        name,
        machine: `app${(i % 5) + 1}`,
        startMs: i * 20,
        ttlMs: 2_000,
        steps: [
          {
            step: 'repeat',
            times: 1_000_000,
            catch: true,
            steps: [
              // A worker that caught a failure waits a moment before the next job, as one would against a store that is down.
              { step: 'sleep', durationMs: 100 },
              { step: 'acquire', blocking: true, waitTimeoutMs: 30_000 },
              { step: 'work', durationMs: 50 },
              { step: 'write' },
              { step: 'release' },
            ],
          },
        ],
      })),
      faults,
      budget: { maxTimeMs: runMs, maxEvents: 1_000_000 },
    },
    'soak',
  );
}
