/**
 * Runs the bench workload (bench/workload.ts) for exactly N kernel events in
 * this fresh process, judged as it runs in bounded memory with no events
 * kept, and prints {events, seconds, usPerEvent, peakRssMiB, heapMiB} as
 * JSON: the cost of an event at every size, and whether memory grows with
 * the run. bench/run.ts starts it at 10^4 and 10^6 events (and more with
 * --events-max), with --expose-gc.
 */
import { performance } from 'node:perf_hooks';
import { runJob } from '../sim/run.js';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import { workloadScenario } from './workload.js';

const events = Number(process.argv[2] ?? 10_000);
// More cycles than any budget reaches, so the event budget is what ends the run.
const raw = workloadScenario(Math.ceil(events / 10)) as { budget: { maxEvents: number } };
raw.budget.maxEvents = events;
const scenario = normalizeScenario(raw, 'bench-workload');
/*
 * Peak RSS also counts garbage V8 has not collected yet, which it lets grow
 * with the heap it was given, not with what the run holds. So in a run of a
 * million events or more, what the run holds is also read twice while it
 * goes on, a third and two thirds of the way, each time after a full
 * collection (whose time is left out of the figure): flat memory means the
 * two readings agree.
 */
const gc = (globalThis as { gc?: () => void }).gc;
const marks = gc !== undefined && events >= 1_000_000 ? new Set([Math.floor(events / 3), Math.floor((2 * events) / 3)]) : new Set<number>();
const heapMiB: number[] = [];
let gcMs = 0;
let seen = 0;
const t0 = performance.now();
const r = runJob(scenario, scenario.seed, {
  hash: false,
  bounded: true,
  ...(marks.size === 0
    ? {}
    : {
        observe: () => {
          if (!marks.has(++seen)) return;
          const g0 = performance.now();
          gc!();
          heapMiB.push(Math.round(process.memoryUsage().heapUsed / 2 ** 20));
          gcMs += performance.now() - g0;
        },
      }),
});
const seconds = (performance.now() - t0 - gcMs) / 1000;
if (r.stop.events !== events) throw new Error(`the run stopped after ${r.stop.events} kernel events (${r.stop.reason}), not ${events}`);
const peakRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
process.stdout.write(`${JSON.stringify({ events, seconds, usPerEvent: (seconds * 1e6) / events, peakRssMiB, heapMiB })}\n`);
