import type { FaultSpec, Scenario } from '../../sim/scenario/types.js';
import { labelOf, runOrigin, withOverride } from '../state/session.js';
import type { LoadedTrace, Origin } from '../state/traces.js';
import { useUi } from '../state/ui.js';
import { formatInstant } from '../../sim/time.js';
import { faultName } from '../sandbox/words.js';

/** What a fork changes, relative to the trace it forks from. */
export type ForkChange =
  | { what: 'fencing'; on: boolean }
  | { what: 'ttl'; client: string; ttlMs: number }
  | { what: 'add-fault'; fault: FaultSpec }
  | { what: 'remove-fault'; index: number };

/** The scenario a trace can be re-run from: its own origin, or for a file the scenario recorded in it. */
export function forkBase(t: LoadedTrace): Exclude<Origin, { kind: 'file' }> {
  return t.origin.kind === 'file' ? { kind: 'scenario', raw: t.doc.scenario, seed: t.doc.seed, overrides: [] } : t.origin;
}

/** Expresses a change as one more `path=value` override, so the fork stays linkable as base + overrides. */
export function overridesFor(base: readonly string[], scenario: Scenario, change: ForkChange): string[] {
  switch (change.what) {
    case 'fencing':
      return withOverride(base, 'resource.fencing', String(change.on));
    case 'ttl':
      return withOverride(base, `clients.${change.client}.ttlMs`, String(change.ttlMs));
    case 'add-fault':
      return withOverride(base, 'faults', JSON.stringify([...scenario.faults, change.fault]));
    case 'remove-fault':
      return withOverride(base, 'faults', JSON.stringify(scenario.faults.filter((_, i) => i !== change.index)));
  }
}

/** What a fork changed, in words that say when it applies: a fault at its time, a setting from the start of the run. */
export function describeChange(change: ForkChange, scenario: Scenario): string {
  switch (change.what) {
    case 'fencing':
      return `the same run with fencing ${change.on ? 'on' : 'off'} from the start`;
    case 'ttl':
      return `the same run with ${change.client}'s TTL at ${change.ttlMs} ms from the start`;
    case 'add-fault':
      return `the same run with a ${faultName(change.fault.kind).toLowerCase()} added at ${formatInstant(change.fault.atMs * 1000)}`;
    case 'remove-fault': {
      const f = scenario.faults[change.index];
      return `the same run without fault ${change.index + 1}${f === undefined ? '' : ` (${faultName(f.kind).toLowerCase()} at ${formatInstant(f.atMs * 1000)})`}`;
    }
  }
}

/** Runs the fork and shows both runs on one time axis in the Compare view. */
export async function fork(from: LoadedTrace, change: ForkChange): Promise<LoadedTrace | null> {
  const base = forkBase(from);
  const overrides = overridesFor(base.overrides, from.doc.scenario, change);
  const origin = { ...base, overrides };
  const b = await runOrigin(origin, `${labelOf(origin)}`);
  if (b === null) return null;
  useUi.getState().set({ secondaryId: b.id, secondaryNote: describeChange(change, from.doc.scenario), view: 'compare' });
  return b;
}
