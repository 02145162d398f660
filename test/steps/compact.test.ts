import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { compactSteps, normalizeSteps } from '../../sim/scenario/steps.js';
import { BUILTIN_SCENARIOS } from '../../sim/scenarios/index.js';
import { randomSteps } from '../support/random-steps.js';

/* A client's steps as a file would write them: what differs from the defaults, nothing more (the Sandbox shows them so). */

describe('compact steps', () => {
  it('leaves out every default, nested blocks included', () => {
    const steps = normalizeSteps([
      { step: 'repeat', steps: [{ step: 'acquire' }, { step: 'work', durationMs: 500 }, { step: 'throw' }], finally: [{ step: 'release' }] },
      { step: 'acquire', blocking: true, retries: 0, onFailure: 'return', method: 'atomic' },
      { step: 'if', condition: { isExpired: true }, then: [{ step: 'release', method: 'plain-del' }] },
      { step: 'fork', steps: [{ step: 'refresh', ttlMs: 3000 }] },
    ]);
    expect(compactSteps(steps)).toEqual([
      { step: 'repeat', steps: [{ step: 'acquire' }, { step: 'work', durationMs: 500 }, { step: 'throw' }], finally: [{ step: 'release' }] },
      { step: 'acquire', blocking: true },
      { step: 'if', condition: { isExpired: true }, then: [{ step: 'release', method: 'plain-del' }] },
      { step: 'fork', steps: [{ step: 'refresh', ttlMs: 3000 }] },
    ]);
  });

  it('gives back the same script: every built-in client written as steps', () => {
    let n = 0;
    for (const [name, raw] of Object.entries(BUILTIN_SCENARIOS)) {
      for (const c of normalizeScenario(raw, name).clients) {
        if (c.steps === null) continue;
        n++;
        const compact = compactSteps(c.steps);
        expect(normalizeSteps(compact), `${name} ${c.name}`).toEqual(c.steps);
        expect(JSON.stringify(compact).length, `${name} ${c.name}`).toBeLessThan(JSON.stringify(c.steps).length);
      }
    }
    expect(n).toBeGreaterThan(5);
  });

  it('gives back the same script: random scripts', () => {
    fc.assert(
      fc.property(randomSteps(3), (steps) => {
        expect(normalizeSteps(compactSteps(steps))).toEqual(steps);
      }),
      { numRuns: 300, seed: 5 },
    );
  });
});
