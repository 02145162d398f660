import type { Json, LessonScenario, RunRef } from './types.js';

/*
 * How a lesson names a run, turned into what the simulator takes: kept apart
 * from runs.ts so the lab's lesson view can build runs for its worker
 * without bundling the simulator itself.
 */

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
  const raw = JSON.parse(JSON.stringify(scenario.raw)) as { faults?: unknown[] };
  raw.faults = [...(raw.faults ?? []), ...(JSON.parse(JSON.stringify(ref.addFaults)) as unknown[])];
  return raw;
}
