import type { LessonCounts, LessonMeta } from '../../sim/lessons/types.js';

/** What the lessons page needs of a lesson, without its text: shipped eagerly, the rest loads on demand. */
export interface LessonSummary extends LessonMeta {
  readonly counts: LessonCounts;
  readonly questions: readonly string[];
  readonly stories: readonly { readonly id: string; readonly lastStop: string }[];
  readonly challenges: readonly string[];
}
