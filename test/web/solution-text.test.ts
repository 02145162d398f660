import { describe, expect, it } from 'vitest';
import { loadLessons } from '../../sim/cli/lessons.js';
import type { Challenge } from '../../sim/lessons/types.js';
import { solutionText } from '../../web/lessons/solution-text.js';

/* "Show the reference solution" says what to change in the words of the challenge's own controls. */

const lessons = loadLessons(undefined, false).lessons;
const challenge = (lesson: string, id: string): Challenge => lessons.find((l) => l.id === lesson)!.challenges.find((c) => c.id === id)!;

describe("a challenge's reference solution", () => {
  it("names a choice by the option its dropdown shows, not by the option's value", () => {
    expect(solutionText(challenge('releasing-safely', 'let-b-in'))).toBe("Set “A's release()” to “in a finally block”.");
  });

  it('gives a number with the unit its control shows', () => {
    expect(solutionText(challenge('one-machine', 'safe-rolling-update'))).toBe('Set “New pod starts its job at” to 5500 ms.');
  });

  it('lists several changes in one sentence', () => {
    expect(solutionText(challenge('atomic-acquire', 'fix-the-race'))).toBe('Set “A acquires with” to “SET NX PX” and set “B acquires with” to “SET NX PX”.');
  });

  it('ticks or unticks a checkbox by its label', () => {
    expect(solutionText(challenge('sessions', 'fence-the-zombie'))).toBe(
      'Set “ZooKeeper lock” to “The recipe (sequential nodes, czxid as fencing token)” and tick “Resource checks fencing tokens”.',
    );
    expect(solutionText(challenge('releasing-safely', 'keep-the-parent-lock'))).toBe("Untick “A's lock has autoRelease”.");
  });

  it('adds a fault by its label, with its fields named as beside the fault', () => {
    expect(solutionText(challenge('pause-past-expiry', 'break-it'))).toBe('Add “Pause A (GC stall)” at 1000 ms, lasting 8000 ms.');
  });

  it('shows no scenario path and no JSON for any challenge of the course', () => {
    for (const l of lessons)
      for (const c of l.challenges) {
        const text = solutionText(c);
        expect(text, `${l.id}/${c.id}`).not.toMatch(/[[\]{}=]|"|\b(clients|faults|resource|store)\.|[a-z]Ms\b/);
        expect(text, `${l.id}/${c.id}`).toMatch(/^[A-Z].*\.$/);
      }
  });
});
