import type { Progress } from './progress.js';

/** Where the course page's main button takes the learner. */
export type Resume<L> =
  /** Nothing visited or finished yet: the first lesson. */
  | { readonly kind: 'start'; readonly lesson: L }
  /** The lesson last visited, not finished yet: back to the place in it. */
  | { readonly kind: 'continue'; readonly lesson: L; readonly anchor: string | null }
  /** The next lesson not finished: the last one visited is finished, or the learner was last in the free lab. */
  | { readonly kind: 'next'; readonly lesson: L }
  /** Every lesson finished. */
  | { readonly kind: 'done' };

/**
 * Where a learner coming back to the course would expect to go. A lesson
 * left half done is picked up where they were in it. Once the lesson last
 * visited is finished, it is the first unfinished lesson after it in course
 * order: a learner who just finished lesson 3 expects lesson 4, not lesson 1
 * they skipped, nor lesson 3 again. Only when none after it is unfinished
 * does it go round to the first unfinished one before it.
 */
export function resumeTarget<L extends { readonly id: string }>(lessons: readonly L[], finished: readonly boolean[], last: Progress['last']): Resume<L> {
  const lastAt = last !== null && 'lesson' in last ? lessons.findIndex((l) => l.id === last.lesson) : -1;
  if (lastAt >= 0 && finished[lastAt] !== true) return { kind: 'continue', lesson: lessons[lastAt]!, anchor: (last as { anchor: string | null }).anchor };
  const from = lastAt + 1;
  const order = [...lessons.keys()].map((i) => (from + i) % lessons.length);
  const next = order.find((i) => finished[i] !== true);
  if (next === undefined) return { kind: 'done' };
  if (lastAt < 0 && finished.every((f) => f !== true)) return { kind: 'start', lesson: lessons[next]! };
  return { kind: 'next', lesson: lessons[next]! };
}
