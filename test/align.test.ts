import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { alignTimelines } from '../sim/real/agreement.js';
import { storyScenario } from '../sim/real/stories.js';
import { runScenario } from '../sim/run.js';
import { validateTrace } from '../sim/trace/validate.js';

const file = 'redis-restart-without-persistence-symfony.json';
const real = validateTrace(JSON.parse(readFileSync(new URL(`../recorded/${file}`, import.meta.url), 'utf8')), file);
const scenario = storyScenario('redis-restart-without-persistence');
const sim = runScenario(scenario, scenario.seed);

describe('the simulated and the real timelines, lined up', () => {
  it("line up the resource's writes by whose write it was, so B's write only the simulation has is not matched with A's", () => {
    // With Symfony Lock, B never gets the lock back after the restart (phpredis does not reconnect): only A writes for real.
    const writes = alignTimelines(sim, real).filter((r) => r.actor === 'resource' && r.kind === 'write.accepted');
    const simA = sim.events.find((e) => e.actor === 'resource' && e.kind === 'write.accepted' && e.owner?.startsWith('A:'))!;
    const simB = sim.events.find((e) => e.actor === 'resource' && e.kind === 'write.accepted' && e.owner?.startsWith('B:'))!;
    const realA = real.events.find((e) => e.actor === 'resource' && e.kind === 'write.accepted' && e.owner?.startsWith('A:'))!;
    expect(real.events.some((e) => e.actor === 'resource' && e.kind === 'write.accepted' && e.owner?.startsWith('B:'))).toBe(false);
    expect(writes).toEqual([
      { actor: 'resource', kind: 'write.accepted', whose: 'B', simUs: simB.timeUs, realUs: null },
      { actor: 'resource', kind: 'write.accepted', whose: 'A', simUs: simA.timeUs, realUs: realA.timeUs },
    ]);
  });

  it("name no one beside a client's own events, and keep every event of both runs once, in time order", () => {
    const rows = alignTimelines(sim, real);
    expect(rows.filter((r) => r.actor === 'A' || r.actor === 'B').every((r) => r.whose === undefined)).toBe(true);
    const times = rows.map((r) => r.simUs ?? r.realUs!);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(rows.filter((r) => r.simUs !== null).length).toBeGreaterThan(0);
    const grants = rows.filter((r) => r.kind === 'lock.granted');
    expect(grants.map((g) => g.whose)).toEqual(expect.arrayContaining(['A', 'B']));
    // B's grant after the restart is the simulation's alone.
    expect(grants.find((g) => g.whose === 'B')!.realUs).toBeNull();
  });
});
