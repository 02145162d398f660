/**
 * A batch server for the stores line of `npm run bench`: it readies one
 * built-in scenario from the compiled package (dist/lib), runs 2,000 seeds
 * to warm up, prints `{"ready":true,"kernelEventsPerRun":…}`, then for each
 * line `N` on stdin runs N more seeds and prints `{"ms":…}`, the time they
 * took. bench/run.ts starts one for a store and one for Redis, each a
 * process of its own with a sweep worker's V8 flags, and asks them for a
 * batch in turn: the two rates of a pair are then taken a few milliseconds
 * apart, so a shared machine's slow stretches fall on both alike.
 * Usage: runs-serve.ts NAME [--set PATH=VALUE ...]
 */
import { createInterface } from 'node:readline';
import { performance } from 'node:perf_hooks';
import { runArgs, type Library } from './runs.js';

const args = process.argv.slice(2);
const { words, sets } = runArgs(args);
const name = words[0] ?? 'pause-past-expiry';
// A path in a variable: the type is the source's (Library), not the build's.
const compiled = '../dist/lib/index.js';
const { runScenario, normalizeScenario, applyOverrides, parseOverride, BUILTIN_SCENARIOS } = (await import(compiled)) as Library;
const scenario = applyOverrides(normalizeScenario(BUILTIN_SCENARIOS[name], name), sets.map(parseOverride));
const warmUp = 2000;
let seed = 0;
let events = 0;
for (; seed < warmUp; seed++) events += runScenario(scenario, seed).stop.events;
process.stdout.write(`${JSON.stringify({ ready: true, kernelEventsPerRun: Math.round(events / warmUp) })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const n = Number(line);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`expected a number of runs on each line, got ${JSON.stringify(line)}`);
  const t0 = performance.now();
  for (const end = seed + n; seed < end; seed++) runScenario(scenario, seed);
  process.stdout.write(`${JSON.stringify({ ms: performance.now() - t0 })}\n`);
}
