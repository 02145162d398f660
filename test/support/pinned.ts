import { afterAll, expect, it } from 'vitest';
import { runScenario } from '../../sim/run.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { applyOverrides, parseOverride } from '../../sim/scenario/set.js';
import { BUILTIN_SCENARIOS } from '../../sim/scenarios/index.js';
import { traceHash } from '../../sim/trace/io.js';
import type { TraceDocument } from '../../sim/trace/types.js';
import { Golden } from './golden.js';

export type Outcome = 'safe' | 'fenced' | 'unsafe';

/** A built-in run (a scenario and `--set` overrides) with the outcome it must have. */
export interface Pinned {
  readonly name: string;
  readonly sets: readonly string[];
  readonly outcome: Outcome;
}

/** Runs a built-in scenario with overrides, at its own seed unless one is given. */
export function runBuiltin(name: string, sets: readonly string[] = [], seed?: number): TraceDocument {
  const scenario = applyOverrides(normalizeScenario(BUILTIN_SCENARIOS[name], name), sets.map(parseOverride));
  return runScenario(scenario, seed ?? scenario.seed);
}

/** The command that reproduces a run, for failure messages (TigerBeetle's VOPR habit). */
export function reproduce(name: string, sets: readonly string[], seed: number): string {
  return `Reproduce: locklab run ${name} --seed ${seed}${sets.map((s) => ` --set ${s}`).join('')}`;
}

/**
 * One test per pinned run: it completes, has its outcome, hashes the same
 * twice, and matches the trace hash kept in `goldenFile` (written locally when
 * missing, a failure under CI).
 */
export function pinOutcomes(goldenFile: URL, pinned: readonly Pinned[]): void {
  const golden = new Golden<{ outcome: string; hash: string; events: number }>(goldenFile.pathname);
  afterAll(() => golden.save());
  for (const p of pinned) {
    const label = [p.name, ...p.sets].join(' ');
    it(`${label} is ${p.outcome}, with a pinned trace hash`, () => {
      const doc = runBuiltin(p.name, p.sets);
      const hint = reproduce(p.name, p.sets, doc.seed);
      expect(doc.stop.reason, hint).toBe('completed');
      expect(doc.verdict.outcome, hint).toBe(p.outcome);
      expect(traceHash(runBuiltin(p.name, p.sets)), `the same run hashed twice differs. ${hint}`).toBe(traceHash(doc));
      golden.expect(label, { outcome: doc.verdict.outcome, hash: traceHash(doc), events: doc.events.length }, hint);
    });
  }
}
