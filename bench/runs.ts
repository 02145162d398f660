/**
 * Whole runs per second, the figure `npm run bench` gives for each store's
 * hazard scenario; bench/runs-run.ts measures it in a fresh process.
 */
import { performance } from 'node:perf_hooks';
import * as source from '../sim/index.js';

export interface Stat {
  median: number;
  min: number;
  max: number;
  samples: number;
}

export function stat(values: number[]): Stat {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median: Math.round(median), min: Math.round(sorted[0]!), max: Math.round(sorted[sorted.length - 1]!), samples: values.length };
}

/** What a measurement runs: the TypeScript source (through tsx), or the compiled package, dist/lib, which the command and a sweep's workers run. */
export type Library = Pick<typeof source, 'runScenario' | 'normalizeScenario' | 'applyOverrides' | 'parseOverride' | 'BUILTIN_SCENARIOS'>;

/** A runs script's arguments: the words that are not options, and each `--set PATH=VALUE` override (repeatable), as on the command line. */
export function runArgs(args: readonly string[]): { words: string[]; sets: string[] } {
  return {
    words: args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--set'),
    sets: args.flatMap((a, i) => (a === '--set' && args[i + 1] !== undefined ? [args[i + 1]!] : [])),
  };
}

/** Whole runs per second of a built-in scenario, each with a different seed, checker included; and the kernel events per run. */
export function runsPerSec(name: string, reps: number, sets: readonly string[] = [], lib: Library = source): { runsPerSec: Stat; kernelEventsPerRun: number } {
  const { runScenario, normalizeScenario, applyOverrides, parseOverride, BUILTIN_SCENARIOS } = lib;
  const scenario = applyOverrides(normalizeScenario(BUILTIN_SCENARIOS[name], name), sets.map(parseOverride));
  const batch = 2000;
  let events = 0;
  for (let s = 0; s < batch; s++) events += runScenario(scenario, s).stop.events; // warm-up, and the mean size of a run
  const rates: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    for (let s = 0; s < batch; s++) runScenario(scenario, s);
    rates.push(batch / ((performance.now() - t0) / 1000));
  }
  return { runsPerSec: stat(rates), kernelEventsPerRun: Math.round(events / batch) };
}
