import type { Option } from '../../sim/lessons/types.js';

/** Whether `chosen` (written indices) is exactly the set of right options: every right one ticked, no wrong one. */
export function isRight(options: readonly Option[], chosen: readonly number[]): boolean {
  return options.every((o, i) => o.correct === chosen.includes(i));
}
