import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Plugin } from 'vite';
import { loadLessons, LESSONS_DIR, readCourse } from '../../sim/cli/lessons.js';
import { CLAIMS_FILE, parseClaims } from '../../sim/lessons/course.js';
import { formatProblem } from '../../sim/lessons/load.js';
import { storyAskKey } from '../../sim/lessons/option-order.js';
import { countsOf, parseLesson } from '../../sim/lessons/parse.js';
import type { Lesson } from '../../sim/lessons/types.js';
import { rightOf } from './answers.js';
import { lessonTree, shortTextTrees } from './text-tree.js';
import type { LabLesson, LessonSummary } from './types.js';

/*
 * Lessons reach the lab as modules: `lessons/NN-id/lesson.md?lesson` is the
 * whole parsed lesson (text, data and scenarios) and `?lesson-meta` the few
 * fields the lessons page lists; the whole lesson also carries its text, and
 * the texts of its questions that have Markdown in them, as the HTML trees
 * the lab draws (text-tree.ts). The lab finds them with import.meta.glob,
 * so a folder dropped into lessons/ appears with no code change. Parsing
 * happens here, at build time, with the same loader as `locklab lessons
 * check`; a production build also replays every lesson and fails with each
 * problem's file and field, so no malformed lesson reaches a learner.
 */

const LESSON_QUERY = '?lesson';
const META_QUERY = '?lesson-meta';

function parseFolder(dir: string): Lesson {
  const claims = parseClaims(readFileSync(join(LESSONS_DIR, CLAIMS_FILE), 'utf8')).claims;
  const { files } = readCourse(dir);
  const folder = basename(dir);
  const { lesson, problems } = parseLesson(folder, files.lessons[folder]!, new Set(claims.map((c) => c.id)));
  if (lesson === undefined) throw new Error(`lesson ${folder} has problems:\n${problems.map(formatProblem).join('\n')}`);
  return lesson;
}

export function summaryOf(l: Lesson): LessonSummary {
  return {
    id: l.id,
    number: l.number,
    folder: l.folder,
    title: l.title,
    summary: l.summary,
    prerequisites: l.prerequisites,
    claims: l.claims,
    counts: countsOf(l),
    questions: l.quiz.map((q) => q.id),
    rightAnswers: Object.fromEntries(l.quiz.map((q) => [q.id, rightOf(q.options)])),
    stories: l.stories.map((s) => ({ id: s.id, lastStop: s.stops[s.stops.length - 1]!.id })),
    asks: Object.fromEntries(
      l.stories.flatMap((s) => s.stops.flatMap((stop) => (stop.ask === undefined ? [] : [[storyAskKey(s.id, stop.id), rightOf(stop.ask.options)]]))),
    ),
    challenges: l.challenges.map((c) => c.id),
  };
}

export function lessonsPlugin(): Plugin {
  let building = false;
  return {
    name: 'locklab-lessons',
    configResolved(config) {
      building = config.command === 'build' && !config.mode.startsWith('test');
    },
    buildStart() {
      if (!building) return;
      const course = loadLessons(LESSONS_DIR, true);
      if (course.problems.length > 0) this.error(`The lessons have problems:\n${course.problems.map(formatProblem).join('\n')}`);
    },
    load(id) {
      const lessonQuery = id.endsWith(LESSON_QUERY);
      if (!lessonQuery && !id.endsWith(META_QUERY)) return null;
      const file = id.slice(0, id.lastIndexOf('?'));
      const dir = dirname(file);
      // Rebuild the module whenever any file of its folder changes.
      const { files } = readCourse(dir);
      for (const f of Object.keys(files.lessons[basename(dir)] ?? {})) this.addWatchFile(join(dir, f));
      const lesson = parseFolder(dir);
      return `export default ${JSON.stringify(lessonQuery ? ({ ...lesson, tree: lessonTree(lesson.body), shortTexts: shortTextTrees(lesson) } satisfies LabLesson) : summaryOf(lesson))};`;
    },
  };
}
