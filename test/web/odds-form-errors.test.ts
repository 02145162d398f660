import { describe, expect, it } from 'vitest';
import { InputError } from '../../sim/errors.js';
import { planSweep } from '../../sim/odds/plan.js';
import { parseSeedRange } from '../../sim/odds/range.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { BUILTIN_SCENARIOS } from '../../sim/scenarios/index.js';
import { readVary, sweepErrorText } from '../../web/odds/form-errors.js';
import { paramChoices } from '../../web/odds/params.js';

/* The Odds form's mistakes name the parameter as the form shows it and say what the Values box takes. */

const base = normalizeScenario(BUILTIN_SCENARIOS['pause-past-expiry'], 'pause-past-expiry');
const choices = paramChoices(base);
const message = (f: () => unknown): string => {
  try {
    f();
  } catch (err) {
    return sweepErrorText(err, choices);
  }
  throw new Error('expected an error');
};

describe("the Odds form's errors", () => {
  it('a mistyped range names the field’s label and the syntax expected, not the scenario path', () => {
    expect(message(() => readVary(choices, 'faults[0].durationMs', '17000..7000:abc'))).toBe(
      'pause of A at 1 s (ms): expected a range from..to:step of numbers (e.g. 7000..17000:1000), or a list v1,v2, got "17000..7000:abc"',
    );
    expect(message(() => readVary(choices, 'faults[0].durationMs', '7000..17000:0'))).toBe(
      'pause of A at 1 s (ms): the step of 7000..17000:0 is zero: give a step above zero (e.g. 7000..17000:1)',
    );
  });

  it('words in a number’s list are refused in the form, with the syntax, before the scenario is touched', () => {
    expect(message(() => readVary(choices, 'faults[0].durationMs', 'abc, 9000'))).toBe(
      'pause of A at 1 s (ms): expected numbers, as from..to:step (e.g. 7000..17000:1000) or a list a,b, got "abc, 9000"',
    );
    expect(message(() => readVary(choices, 'resource.fencing', 'yes,no'))).toBe('fencing: expected true or false, as a list (false,true), got "yes,no"');
  });

  it('reads a good range and list as the command line does', () => {
    expect(readVary(choices, 'faults[0].durationMs', ' 7000..9000:1000 ')).toEqual({ path: 'faults[0].durationMs', values: [7000, 8000, 9000] });
    expect(readVary(choices, 'resource.fencing', 'false,true').values).toEqual([false, true]);
  });

  it('an error the scenario raises names its path by the form’s label, without the command line’s option', () => {
    const err = message(() =>
      planSweep({
        scenarioRef: 'pause-past-expiry',
        base,
        sets: [],
        varies: [readVary(choices, 'faults[0].durationMs', '-1000,1000')],
        seeds: parseSeedRange('1..2'),
        codeVersion: 'lab',
        batchSize: 2,
      }),
    );
    expect(err).toMatch(/^pause of A at 1 s \(ms\): /);
    expect(err).not.toContain('--vary');
    expect(sweepErrorText(new InputError('runs per point', [{ path: '', message: 'expected a whole number' }]), choices)).toBe(
      'runs per point: expected a whole number',
    );
  });
});
