import { checkLesson } from './check.js';
import { checkCourse, parseClaims, type Claim } from './course.js';
import { parseLesson, type LessonFiles } from './parse.js';
import type { Lesson, LessonProblem } from './types.js';

/** The texts of a lessons folder: claims.yaml and each lesson folder's files, by folder name. */
export interface CourseFiles {
  readonly claims: string;
  readonly lessons: Readonly<Record<string, LessonFiles>>;
}

export interface LoadedCourse {
  readonly claims: readonly Claim[];
  readonly lessons: readonly Lesson[];
  readonly problems: readonly LessonProblem[];
}

/**
 * Reads and checks a whole course: every lesson by the same rules the build,
 * the tests and `locklab lessons check` apply, then the rules over all of
 * them. `replay: false` skips running the scenarios (the lab does that in
 * its worker); a lesson with problems is left out of `lessons`.
 */
export function loadCourse(files: CourseFiles, opts: { replay?: boolean; course?: boolean } = {}): LoadedCourse {
  const { claims, problems: claimProblems } = parseClaims(files.claims);
  const problems: LessonProblem[] = [...claimProblems];
  const known = new Set(claims.map((c) => c.id));
  const lessons: Lesson[] = [];
  for (const folder of Object.keys(files.lessons).sort()) {
    const parsed = parseLesson(folder, files.lessons[folder]!, known);
    problems.push(...parsed.problems);
    if (parsed.lesson === undefined) continue;
    const replayed = opts.replay === false ? [] : checkLesson(parsed.lesson);
    problems.push(...replayed);
    if (replayed.length === 0) lessons.push(parsed.lesson);
  }
  if (opts.course !== false && problems.length === 0) problems.push(...checkCourse(lessons, claims));
  return { claims, lessons, problems };
}

/** A problem as one line: file, field, message. */
export function formatProblem(p: LessonProblem): string {
  return `${p.file}: ${p.field}: ${p.message}`;
}
