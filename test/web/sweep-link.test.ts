import { describe, expect, it } from 'vitest';
import { BUILTIN_SCENARIOS, normalizeScenario } from '../../sim/index.js';
import { sweepLinkOf } from '../../web/views/sweep-link.js';

const scenario = (name: string) => normalizeScenario(BUILTIN_SCENARIOS[name], name);
const builtin = (name: string, overrides: string[] = []) => ({ kind: 'builtin' as const, name, seed: 4, overrides });

describe("the Lab's link to sweep what it shows", () => {
  it('opens the Odds view on a built-in whose faults are random, with its overrides as fields of one value', () => {
    const rgp = scenario('random-gc-pauses');
    expect(sweepLinkOf(builtin('random-gc-pauses'), rgp)).toBe('#/odds?s=random-gc-pauses');
    expect(sweepLinkOf(builtin('random-gc-pauses', ['resource.fencing=true', 'clients[*].ttlMs=20000']), rgp)).toBe(
      `#/odds?s=random-gc-pauses&vary=resource.fencing%3Dtrue&vary=${encodeURIComponent('clients[*].ttlMs=20000')}`,
    );
  });

  it('offers none for scripted faults, a scenario not built in, or overrides the Odds view cannot carry', () => {
    const rgp = scenario('random-gc-pauses');
    expect(sweepLinkOf(builtin('pause-past-expiry'), scenario('pause-past-expiry'))).toBeUndefined();
    expect(sweepLinkOf({ kind: 'scenario', raw: BUILTIN_SCENARIOS['random-gc-pauses'], seed: null, overrides: [] }, rgp)).toBeUndefined();
    expect(sweepLinkOf({ kind: 'file', fileName: 'trace.json' }, rgp)).toBeUndefined();
    expect(sweepLinkOf(builtin('random-gc-pauses', ['resource.fencing=true', 'clients[*].ttlMs=20000', 'seed=3']), rgp)).toBeUndefined();
    expect(sweepLinkOf(builtin('random-gc-pauses', ['clients[*].ttlMs=1000,2000']), rgp)).toBeUndefined();
  });
});
