import type { FaultSpec, Scenario } from '../../sim/scenario/types.js';
import { labelOf, runOrigin, withOverride } from '../state/session.js';
import type { LoadedTrace, Origin } from '../state/traces.js';
import { useUi } from '../state/ui.js';

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

export function describeChange(change: ForkChange, atUs: number): string {
  const at = `${(atUs / 1e6).toFixed(3)} s`;
  switch (change.what) {
    case 'fencing':
      return `fork at ${at}: fencing ${change.on ? 'on' : 'off'}`;
    case 'ttl':
      return `fork at ${at}: ${change.client}'s TTL ${change.ttlMs} ms`;
    case 'add-fault':
      return `fork at ${at}: add a ${change.fault.kind}`;
    case 'remove-fault':
      return `fork at ${at}: without fault ${change.index + 1}`;
  }
}

/** Runs the fork and shows both runs on one time axis in the Compare view. */
export async function fork(from: LoadedTrace, change: ForkChange): Promise<LoadedTrace | null> {
  const base = forkBase(from);
  const atUs = useUi.getState().playheadUs;
  const overrides = overridesFor(base.overrides, from.doc.scenario, change);
  const origin = { ...base, overrides };
  const b = await runOrigin(origin, `${labelOf(origin)}`);
  if (b === null) return null;
  useUi.getState().set({ secondaryId: b.id, secondaryNote: describeChange(change, atUs), view: 'compare' });
  return b;
}
