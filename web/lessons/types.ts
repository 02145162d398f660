import type { Root } from 'hast';
import type { Lesson, LessonCounts, LessonMeta } from '../../sim/lessons/types.js';

/** What the lessons page needs of a lesson, without its text: shipped eagerly, the rest loads on demand. */
export interface LessonSummary extends LessonMeta {
  readonly counts: LessonCounts;
  readonly questions: readonly string[];
  /** Each question's right options, by written index: what the course page counts a learner's answers right by. */
  readonly rightAnswers: Readonly<Record<string, readonly number[]>>;
  readonly stories: readonly { readonly id: string; readonly lastStop: string }[];
  /** The right options of each question a story asks before a stop, by its progress key (`storyAskKey`). */
  readonly asks: Readonly<Record<string, readonly number[]>>;
  readonly challenges: readonly string[];
}

/** A lesson as the lab loads it: with its text already made the tree the page draws. */
export interface LabLesson extends Lesson {
  readonly tree: Root;
  /** The trees of its questions' and options' texts that have Markdown in them, by text (text-tree.ts, `shortTextTrees`). */
  readonly shortTexts: Readonly<Record<string, Root>>;
}
