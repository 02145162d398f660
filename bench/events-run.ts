/**
 * Runs the bench workload (bench/workload.ts) for exactly N kernel events in
 * this fresh process, judged as it runs with no events kept, and prints
 * {events, seconds, usPerEvent, peakRssMiB} as JSON: the cost of an event at
 * every size, and whether memory grows with the run. bench/run.ts starts it
 * at 10^4 and 10^6 events (and more with --events-max).
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
const t0 = performance.now();
const r = runJob(scenario, scenario.seed, { hash: false });
const seconds = (performance.now() - t0) / 1000;
if (r.stop.events !== events) throw new Error(`the run stopped after ${r.stop.events} kernel events (${r.stop.reason}), not ${events}`);
const peakRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
process.stdout.write(`${JSON.stringify({ events, seconds, usPerEvent: (seconds * 1e6) / events, peakRssMiB })}\n`);
