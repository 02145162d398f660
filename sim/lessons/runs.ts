import { check } from '../check/checker.js';
import { runScenario } from '../run.js';
import { normalizeScenario } from '../scenario/normalize.js';
import { applyOverrides } from '../scenario/set.js';
import type { Scenario } from '../scenario/types.js';
import type { TraceDocument } from '../trace/types.js';
import type { Judged } from './expect.js';
import { overridesOf, rawOf } from './refs.js';
import type { LessonScenario, RunRef } from './types.js';

export { overridesOf, overrideStrings, rawOf } from './refs.js';

/** Builds a run's scenario; throws InputError (naming the path) when the file or an override is wrong. */
export function scenarioOf(scenario: LessonScenario, ref: RunRef): Scenario {
  return applyOverrides(normalizeScenario(rawOf(scenario, ref), scenario.file), overridesOf(ref.set));
}

/** Runs a scenario at its pinned seed and judges it with the checker. */
export function judge(scenario: Scenario, seed: number): { doc: TraceDocument; judged: Judged } {
  const doc = runScenario(scenario, seed);
  return { doc, judged: { events: doc.events, verdict: check(doc.events), stop: doc.stop.reason } };
}
