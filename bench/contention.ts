import { makeRng } from '../sim/kernel/rng.js';
import { LIMITS } from '../sim/scenario/limits.js';

/**
 * The benchmark's contention workload: many clients on several machines
 * taking one key over and over with short leases, blocking (polling) when it
 * is taken, while random GC pauses hit them. Built from a fixed seed, so every
 * run measures the same work.
 */
export function contentionScenario(clients = 40, iterations = 200, pauses = 60): Record<string, unknown> {
  const rng = makeRng('bench/contention');
  const machines = Array.from({ length: 8 }, (_, i) => ({ name: `app${i + 1}` }));
  const horizonMs = clients * iterations * 12;
  return {
    name: 'bench-contention',
    summary: `${clients} clients × ${iterations} acquisitions of one key, blocking, with ${pauses} random pauses.`,
    seed: 1,
    budget: { maxEvents: LIMITS.maxTraceEvents, maxTimeMs: horizonMs * 20 },
    machines: [...machines, { name: 'db' }],
    network: { latencyMinMs: 0.2, latencyMaxMs: 1.5, loss: 0 },
    store: { kind: 'redis', machine: 'db' },
    resource: { machine: 'db', fencing: true },
    clients: Array.from({ length: clients }, (_, i) => ({
      name: `c${i}`,
      machine: `app${(i % 8) + 1}`,
      startMs: rng.int(0, 100),
      ttlMs: 200,
      workMs: rng.int(2, 10),
      iterations,
      thinkMs: rng.int(0, 20),
      acquire: { mode: 'blocking' },
    })),
    faults: Array.from({ length: pauses }, () => ({
      kind: 'pause',
      target: `c${rng.int(0, clients - 1)}`,
      atMs: rng.int(0, horizonMs),
      durationMs: rng.int(50, 400),
    })),
  };
}
