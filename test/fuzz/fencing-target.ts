import { runScenario } from '../../sim/run.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { explainStaleWrites, tokenOrderViolations } from '../support/fencing-limits.js';
import { randomScenarioOf } from '../support/random-scenario.js';
import { must, outcomeOf } from './outcome.js';
import type { Target } from './targets.js';

/**
 * Random fault schedules on a store kind with a token source, fencing on:
 * tokens rise with every grant, and every stale write the resource accepts
 * is one of the documented limits of fencing (docs/fencing.md).
 */
export function fencingTarget(kind: string): Target<Record<string, unknown>> {
  return {
    name: `fenced fault schedules on ${kind}`,
    arbitrary: randomScenarioOf(kind, { fencing: true, maxFaults: 8, contended: true }),
    async run(raw) {
      return outcomeOf(() => {
        const doc = runScenario(normalizeScenario(raw, 'random'));
        const order = tokenOrderViolations(doc);
        must(order.length === 0, order.join('; '));
        const unexplained = explainStaleWrites(doc).filter((x) => x.limit === null);
        must(unexplained.length === 0, unexplained.map((u) => u.detail).join('; '));
      });
    },
  };
}
