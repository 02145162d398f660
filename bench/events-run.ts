/**
 * Runs the bench workload (bench/workload.ts) for exactly N kernel events in
 * this fresh process, judged as it runs in bounded memory with no events
 * kept, and prints {events, seconds, usPerEvent, peakRssMiB, heapMiB} as
 * JSON: the cost of an event at every size, and whether memory grows with
 * the run. bench/run.ts starts it at 10^4 and 10^6 events (and more with
 * --events-max), with --expose-gc. The time is that of the measured run
 * alone, after a warm-up run.
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
 * Every size is timed with the JIT warm: first a run of 200,000 events at
 * another seed, so that the figure at 10^4 is the cost of an event, not
 * the compiler's start (the start-up has its own figure).
 */
const warmRaw = workloadScenario(20_000) as { budget: { maxEvents: number } };
warmRaw.budget.maxEvents = 200_000;
const warm = normalizeScenario(warmRaw, 'bench-workload');
runJob(warm, warm.seed + 1, { hash: false, bounded: true });
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
/** One timed run of exactly `events` kernel events, in seconds, the full collections left out. */
function timedRun(seed: number): number {
  gcMs = 0;
  const t0 = performance.now();
  const r = runJob(scenario, seed, {
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
  return seconds;
}
// A run of 10^4 events lasts milliseconds, about one scavenge: the median of 21 such runs (other seeds) says more than one.
const times = Array.from({ length: events <= 100_000 ? 21 : 1 }, (_, i) => timedRun(scenario.seed + i)).sort((a, b) => a - b);
const seconds = times[times.length >> 1]!;
const peakRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
process.stdout.write(`${JSON.stringify({ events, seconds, usPerEvent: (seconds * 1e6) / events, peakRssMiB, heapMiB })}\n`);
