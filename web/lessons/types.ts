import type { LessonCounts } from '../../sim/lessons/types.js';

/** What the lessons page needs of a lesson, without its text: shipped eagerly, the rest loads on demand. */
export interface LessonSummary {
  readonly id: string;
  readonly number: number;
  readonly folder: string;
  readonly title: string;
  readonly summary: string;
  readonly prerequisites: readonly string[];
  readonly claims: readonly string[];
  readonly counts: LessonCounts;
  readonly questions: readonly string[];
  readonly stories: readonly { readonly id: string; readonly lastStop: string }[];
  readonly challenges: readonly string[];
}
