import fc from 'fast-check';
import type { Outcome } from './outcome.js';
import type { Target } from './targets.js';

/** The property every fuzz target must hold: nothing crashes, and every refusal says where. */
export function holds(outcome: Outcome): string | null {
  if (outcome.kind === 'crashed') return `crashed: ${outcome.message}`;
  if (outcome.kind === 'rejected' && !outcome.named) return `refused without naming a path or a limit: ${outcome.message}`;
  return null;
}

/** The target as a fast-check property (for fc.assert and for replaying a pinned seed). */
export function propertyOf<T>(target: Target<T>): fc.IAsyncProperty<[T]> {
  return fc.asyncProperty(target.arbitrary, async (input) => {
    const problem = holds(await target.run(input));
    if (problem !== null) throw new Error(problem);
  });
}
