import { hasRandomFaults } from '../../sim/reproduce.js';
import type { Scenario } from '../../sim/scenario/types.js';
import { buildBuiltinLink, EMPTY_LINK, MAX_VARIED } from '../links/permalink.js';
import type { Origin } from '../state/traces.js';

/**
 * The Odds view's address that sweeps what the Lab shows over many seeds:
 * for a built-in scenario whose faults are drawn at random, where one seed
 * is one draw of them. Its overrides (Fencing ticked, a fix tried) come
 * along as fields varied over their one value, so the sweep runs the
 * scenario on screen; undefined for a scenario from a file or the Sandbox
 * (an Odds address names built-ins only), for scripted faults, and for more
 * overrides than the Odds view varies fields or one that is a list or range.
 */
export function sweepLinkOf(origin: Origin, scenario: Pick<Scenario, 'clients'>): string | undefined {
  if (origin.kind !== 'builtin' || !hasRandomFaults(scenario) || origin.overrides.length > MAX_VARIED) return undefined;
  const single = (o: string) => {
    const value = o.slice(o.indexOf('=') + 1);
    return o.includes('=') && !value.includes(',') && !value.includes('..');
  };
  if (!origin.overrides.every(single)) return undefined;
  return buildBuiltinLink({ ...EMPTY_LINK, view: 'odds', scenario: { builtin: origin.name }, odds: { vary: [...origin.overrides], runs: null } });
}
