/**
 * The lock-contention workload that Locklab, SimPy and a bare heap each run
 * in `npm run bench`: 50 clients on their own machines contend for one key
 * on a Redis-like lease store (SET NX PX, expiry on the server, token-checked
 * release), TTL 1 s; network latency uniform 0.5–1.5 ms each way; a refused
 * client polls again after 100 ± 10 ms; a holder works for an exponentially
 * distributed time with mean 20 ms, drawn afresh for every acquisition; with
 * probability 1 % an acquisition is followed by a GC pause uniform in 0–2 s;
 * then it releases. One lock cycle is one acquire and its release.
 */
export const WORKLOAD = {
  clients: 50,
  ttlMs: 1000,
  latencyMinMs: 0.5,
  latencyMaxMs: 1.5,
  pollMs: 100,
  pollJitterMs: 10,
  workMeanMs: 20,
  pauseProbability: 0.01,
  pauseMaxMs: 2000,
};

export function workloadScenario(cycles: number): Record<string, unknown> {
  const w = WORKLOAD;
  const iterations = Math.ceil(cycles / w.clients);
  return {
    name: 'bench-workload',
    summary: `${w.clients} clients × ${iterations} lock cycles on one Redis key, TTL ${w.ttlMs} ms, exponential work (mean ${w.workMeanMs} ms), 1 % GC pauses up to ${w.pauseMaxMs} ms.`,
    seed: 1,
    budget: { maxEvents: 100_000_000, maxTimeMs: 30 * 24 * 3600 * 1000 },
    machines: [...Array.from({ length: w.clients }, (_, i) => ({ name: `m${i}` })), { name: 'db' }],
    network: { latencyMinMs: w.latencyMinMs, latencyMaxMs: w.latencyMaxMs, distribution: 'uniform', loss: 0 },
    store: { kind: 'redis', machine: 'db' },
    resource: { machine: 'db', fencing: false },
    clients: Array.from({ length: w.clients }, (_, i) => ({
      name: `c${i}`,
      machine: `m${i}`,
      ttlMs: w.ttlMs,
      acquire: { mode: 'blocking' },
      workTime: { distribution: 'exponential', meanMs: w.workMeanMs },
      pauseAfterAcquire: { probability: w.pauseProbability, duration: { distribution: 'uniform', minMs: 0, maxMs: w.pauseMaxMs } },
      writes: 0,
      iterations,
    })),
    faults: [],
  };
}
