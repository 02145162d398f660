import fc from 'fast-check';
import type { AcquireOnFailure, Step } from '../../sim/scenario/steps.js';

/* Random clients' scripts, already normalized: nested repeats, ifs, forks, and acquires that go on with the next pass where there is one. */

const leaf = fc.constantFrom<Step>(
  { step: 'work', durationMs: 1500, refreshEveryMs: null },
  { step: 'sleep', durationMs: 250 },
  { step: 'write' },
  { step: 'release', method: 'token-checked' },
  { step: 'release', method: 'plain-del' },
  { step: 'refresh', ttlMs: null },
  { step: 'isExpired' },
  { step: 'throw', message: "it's broken \\ here" },
);

function acquire(inLoop: boolean): fc.Arbitrary<Step> {
  return fc
    .record({
      blocking: fc.boolean(),
      retries: fc.nat(3),
      onFailure: fc.constantFrom<AcquireOnFailure>(...(inLoop ? (['return', 'next-iteration', 'ignore'] as const) : (['return', 'ignore'] as const))),
      method: fc.constantFrom<'atomic' | 'exists-then-set'>('atomic', 'exists-then-set'),
    })
    .map((a): Step => ({ step: 'acquire', native: false, retryDelayMs: 100, waitTimeoutMs: null, ...a }));
}

/** A block of up to four steps, blocks nested up to `depth` deep; `inLoop`: a repeat encloses it, so an acquire may go on with the next pass. */
export function randomSteps(depth: number, inLoop = false): fc.Arbitrary<Step[]> {
  const one: fc.Arbitrary<Step>[] = [leaf, acquire(inLoop)];
  if (depth > 0)
    one.push(
      fc
        .record({
          times: fc.integer({ min: 1, max: 3 }),
          body: randomSteps(depth - 1, true),
          fin: randomSteps(depth - 1, true),
          catch: fc.boolean(),
          newLock: fc.boolean(),
        })
        .map((r): Step => ({ step: 'repeat', times: r.times, steps: r.body, finally: r.fin, catch: r.catch, newLock: r.newLock })),
      fc
        .record({ then: randomSteps(depth - 1, inLoop), else: randomSteps(depth - 1, inLoop) })
        .map((r): Step => ({ step: 'if', condition: { isAcquired: true }, then: r.then, else: r.else })),
      randomSteps(depth - 1, false).map((body): Step => ({ step: 'fork', steps: body })),
    );
  return fc.array(fc.oneof(...one), { maxLength: 4 });
}
