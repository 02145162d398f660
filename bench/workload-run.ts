/**
 * Runs the bench workload once, in this fresh process, with one of the
 * implementations, and prints {cycles, seconds, cyclesPerSec} as JSON:
 * `kept` (Locklab, trace recorded and judged), `streaming` (Locklab's run job:
 * judged as it runs, no events kept, no run hash) or `bare` (the typed-array
 * heap). bench/run.ts starts it in turn with SimPy's peer, with --compiled:
 * Locklab's modes then run the compiled package, as `locklab run` does.
 * Usage: workload-run.ts MODE [CYCLES] [--compiled]
 */
import { performance } from 'node:perf_hooks';
import * as source from '../sim/index.js';
import { bareHeapCycles } from './peers/bare-heap.js';
import { workloadScenario } from './workload.js';

const [mode, cyclesArg] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const cycles = Number(cyclesArg ?? 20_000);
// With --compiled, the compiled package (dist/lib), which `locklab run` runs; else the TypeScript source. A path in a variable: the type is the source's.
const compiled = '../dist/lib/index.js';
const { runJob, normalizeScenario } = process.argv.includes('--compiled') ? ((await import(compiled)) as typeof source) : source;
const t0 = performance.now();
let done: number;
if (mode === 'bare') done = bareHeapCycles(cycles);
else {
  const scenario = normalizeScenario(workloadScenario(cycles), 'bench-workload');
  if (mode === 'kept') {
    // The trace kept whole, in the columns a run keeps it in, and judged as it ran; the cycles are counted from it.
    const trace = runJob(scenario, scenario.seed, { trace: true, hash: false }).trace!;
    done = 0;
    for (let i = 0; i < trace.length; i++) if (trace.kindAt(i) === 'acquire.ok') done++;
  } else if (mode === 'streaming') {
    const r = runJob(scenario, scenario.seed, { hash: false, bounded: true });
    // Every client completes each of its iterations (blocking acquires never give up), so the cycles are the iterations.
    if (r.stop.reason !== 'completed') throw new Error(`the workload stopped at its ${r.stop.reason}`);
    done = scenario.clients.reduce((n, c) => n + c.iterations, 0);
  } else throw new Error(`mode must be kept, streaming or bare, got ${String(mode)}`);
}
const seconds = (performance.now() - t0) / 1000;
process.stdout.write(`${JSON.stringify({ cycles: done, seconds, cyclesPerSec: done / seconds })}\n`);
