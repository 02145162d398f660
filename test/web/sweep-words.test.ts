import { describe, expect, it } from 'vitest';
import { loadLessons, LESSONS_DIR } from '../../sim/cli/lessons.js';
import type { Sweep } from '../../sim/lessons/types.js';
import { sweepForm, sweepWords } from '../../web/lessons/sweep-words.js';

const lesson4 = loadLessons(LESSONS_DIR, false).lessons.find((l) => l.number === 4)!;
const sweep = (s: Partial<Sweep>): Sweep => ({ id: 'x', title: 'X', scenario: 'random-gc-pauses', vary: [], runs: 200, caption: 'C.', ...s });

describe("a lesson's sweep card", () => {
  it("names lesson 4's field as the Odds view's form does, with its values in a sentence", () => {
    expect(sweepWords(lesson4.sweeps[0]!)).toEqual({
      fields: [{ path: 'clients[*].ttlMs', label: 'TTL of every client (ms)', values: '10,000, 30,000 and 60,000' }],
      points: 3,
      runs: 200,
    });
  });

  it('says a long range by its ends and step, a path the form does not offer by the path, and counts every combination', () => {
    expect(sweepWords(sweep({ scenario: 'pause-past-expiry', vary: ['faults[0].durationMs=7000..17000:1000', 'resource.fencing=false,true'] }))).toEqual({
      fields: [
        { path: 'faults[0].durationMs', label: 'pause of A at 1 s (ms)', values: '7,000 to 17,000 in steps of 1,000 (11 values)' },
        { path: 'resource.fencing', label: 'fencing', values: 'false and true' },
      ],
      points: 22,
      runs: 200,
    });
    expect(sweepWords(sweep({ vary: ['clients.A.thinkMs=0.5..1.5:0.5'] })).fields).toEqual([
      { path: 'clients.A.thinkMs', label: 'clients.A.thinkMs', values: '0.5, 1 and 1.5' },
    ]);
  });

  it('fills the form with each field and its values as --vary wrote them, trimmed, and the runs', () => {
    expect(sweepForm(sweep({ vary: [' clients[*].ttlMs = 10000,30000 ', 'resource.fencing=false,true'], runs: 50 }))).toEqual({
      scenario: 'random-gc-pauses',
      path1: 'clients[*].ttlMs',
      spec1: '10000,30000',
      path2: 'resource.fencing',
      spec2: 'false,true',
      runs: '50',
    });
    expect(sweepForm(lesson4.sweeps[0]!)).toMatchObject({ path1: 'clients[*].ttlMs', spec1: '10000,30000,60000', path2: '', runs: '200' });
  });
});
