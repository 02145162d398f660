import { describe, expect, it } from 'vitest';
import { lessonStories } from '../../sim/real/lesson-stories.js';
import { applyOverrides, parseOverride } from '../../sim/scenario/set.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { BUILTIN_SCENARIOS } from '../../sim/scenarios/index.js';
import { RECORDINGS, recordingsFor } from '../../web/state/recorded.js';

const builtin = (name: string, sets: readonly string[] = []) => applyOverrides(normalizeScenario(BUILTIN_SCENARIOS[name], name), sets.map(parseOverride));
const story = (lesson: string, id: string) => lessonStories().find((s) => s.lesson === lesson && s.story === id)!.scenario;

describe('the recordings Compare offers beside a run', () => {
  it('are those of the same scenario by content, one per client, whether it came from a lesson or is a built-in', () => {
    const lessonOnes = recordingsFor(story('sessions', 'connection-loss'));
    expect(lessonOnes.map((r) => r.client)).toEqual(['node', 'symfony']);
    // The lesson's story is the built-in itself, so the built-in is offered the same pair, not four buttons.
    const builtins = recordingsFor(builtin('postgres-connection-loss'));
    expect(builtins.map((r) => r.client)).toEqual(['node', 'symfony']);
    // Where both recorded it, the built-in's recording is the one offered.
    expect(builtins.every((r) => r.lesson === undefined)).toBe(true);
  });

  it("offers a lesson's own recording for a lesson scenario that differs from the built-in of its name", () => {
    const mine = RECORDINGS.filter(
      (r) => r.lesson !== undefined && RECORDINGS.some((o) => o.lesson === undefined && o.scenario === r.scenario && o.scenarioKey !== r.scenarioKey),
    );
    expect(mine.length).toBeGreaterThan(0);
    for (const r of mine) {
      const offered = recordingsFor(story(r.lesson!, r.story!));
      expect(offered.find((o) => o.client === r.client)?.scenarioKey).toBe(r.scenarioKey);
      // ...and never the built-in's recording of another scenario that merely shares the name.
      expect(offered.every((o) => o.scenarioKey === r.scenarioKey)).toBe(true);
    }
  });

  it('follow the overrides: fencing switched on is another scenario, with its own recording or none', () => {
    const off = recordingsFor(builtin('pause-past-expiry'));
    const on = recordingsFor(builtin('pause-past-expiry', ['resource.fencing=true']));
    expect(off.length).toBeGreaterThan(0);
    expect(on.length).toBeGreaterThan(0);
    expect(on.every((r) => r.sets.includes('resource.fencing=true'))).toBe(true);
    expect(off.every((r) => !r.sets.includes('resource.fencing=true'))).toBe(true);
    // A TTL nobody recorded has no real counterpart.
    expect(recordingsFor(builtin('pause-past-expiry', ['clients[*].ttlMs=12345']))).toEqual([]);
  });

  it('ignore the seed, which real servers do not draw from', () => {
    const s = builtin('crash-without-release');
    expect(recordingsFor({ ...s, seed: s.seed + 99 })).toEqual(recordingsFor(s));
    expect(recordingsFor(s).length).toBe(2);
  });
});
