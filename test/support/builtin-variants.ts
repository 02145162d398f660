import fc from 'fast-check';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { applyOverrides, parseOverride } from '../../sim/scenario/set.js';
import type { Scenario } from '../../sim/scenario/types.js';
import { BUILTIN_NAMES, BUILTIN_SCENARIOS } from '../../sim/scenarios/index.js';
import { STORE_KINDS } from '../../sim/stores/registry.js';

/** Every built-in scenario, and every store kind's hazard run (some kinds share a scenario with `--set` overrides). */
export function builtinRuns(): Array<{ label: string; scenario: Scenario }> {
  const out = BUILTIN_NAMES.map((name) => ({ label: name, scenario: normalizeScenario(BUILTIN_SCENARIOS[name], name) }));
  for (const k of STORE_KINDS) {
    if ((k.hazardSets ?? []).length === 0) continue;
    const base = normalizeScenario(BUILTIN_SCENARIOS[k.hazardScenario], k.hazardScenario);
    out.push({ label: `${k.hazardScenario} ${k.hazardSets!.join(' ')}`, scenario: applyOverrides(base, k.hazardSets!.map(parseOverride)) });
  }
  return out;
}

/**
 * Random variations of the built-in runs, which between them cover every
 * store kind: another seed, fencing on or off, every TTL and fault time
 * scaled, and pauses lengthened or shortened.
 */
export const builtinVariant = fc
  .record({
    base: fc.integer({ min: 0, max: 1_000 }),
    seed: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
    fencing: fc.boolean(),
    ttlScale: fc.constantFrom(0.5, 0.8, 1, 1.25, 2),
    timeScale: fc.constantFrom(0.5, 0.9, 1, 1.1, 1.5),
  })
  .map(({ base, seed, fencing, ttlScale, timeScale }) => {
    const runs = builtinRuns();
    const { label, scenario } = runs[base % runs.length]!;
    const s = structuredClone(scenario);
    s.seed = seed;
    s.resource.fencing = fencing;
    for (const c of s.clients) c.ttlMs = Math.max(1000, Math.round(c.ttlMs * ttlScale));
    for (const f of s.faults) {
      f.atMs = Math.round(f.atMs * timeScale);
      if ('durationMs' in f) f.durationMs = Math.max(1, Math.round(f.durationMs * timeScale));
    }
    return { label: `${label} (seed ${seed}, fencing ${fencing}, ttl ×${ttlScale}, times ×${timeScale})`, scenario: s };
  });
