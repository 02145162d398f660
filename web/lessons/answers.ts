import type { Option } from '../../sim/lessons/types.js';

/** The written indices of a question's right options. */
export function rightOf(options: readonly Option[]): number[] {
  return options.flatMap((o, i) => (o.correct ? [i] : []));
}

/** Whether `chosen` (written indices) is exactly `right`: every right option ticked, no other. */
export function matches(right: readonly number[], chosen: readonly number[]): boolean {
  return right.length === chosen.length && right.every((i) => chosen.includes(i));
}

/** Whether `chosen` (written indices) is exactly the set of right options. */
export function isRight(options: readonly Option[], chosen: readonly number[]): boolean {
  return matches(rightOf(options), chosen);
}
