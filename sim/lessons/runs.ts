import { check } from '../check/checker.js';
import { runScenario } from '../run.js';
import { normalizeScenario } from '../scenario/normalize.js';
import { applyOverrides } from '../scenario/set.js';
import type { Scenario } from '../scenario/types.js';
import type { TraceDocument } from '../trace/types.js';
import type { Judged } from './expect.js';
import type { Json, LessonScenario, RunRef } from './types.js';

/** The overrides of a `set` map, in the form `applyOverrides` takes. */
export function overridesOf(set: Readonly<Record<string, Json>> | undefined): { path: string; value: unknown }[] {
  return Object.entries(set ?? {}).map(([path, value]) => ({ path, value }));
}

/** The same overrides as `--set path=value` strings, as the lab's worker and links carry them. */
export function overrideStrings(set: Readonly<Record<string, Json>> | undefined): string[] {
  return Object.entries(set ?? {}).map(([path, value]) => `${path}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
}

/** The scenario document of a run before defaults: the lesson's file with any extra faults appended. */
export function rawOf(scenario: LessonScenario, ref: Pick<RunRef, 'addFaults'>): unknown {
  if (ref.addFaults === undefined || ref.addFaults.length === 0) return scenario.raw;
  const raw = structuredClone(scenario.raw) as { faults?: unknown[] };
  raw.faults = [...(raw.faults ?? []), ...structuredClone(ref.addFaults)];
  return raw;
}

/** Builds a run's scenario; throws InputError (naming the path) when the file or an override is wrong. */
export function scenarioOf(scenario: LessonScenario, ref: RunRef): Scenario {
  return applyOverrides(normalizeScenario(rawOf(scenario, ref), scenario.file), overridesOf(ref.set));
}

/** Runs a scenario at its pinned seed and judges it with the checker. */
export function judge(scenario: Scenario, seed: number): { doc: TraceDocument; judged: Judged } {
  const doc = runScenario(scenario, seed);
  return { doc, judged: { events: doc.events, verdict: check(doc.events), stop: doc.stop.reason } };
}
