import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { Colors } from 'picocolors/types.js';
import { summarize } from '../check/summary.js';
import { InputError } from '../errors.js';
import { fillCaption } from '../lessons/caption.js';
import { CLAIMS_FILE } from '../lessons/course.js';
import { loadCourse, type CourseFiles, type LoadedCourse } from '../lessons/load.js';
import { FOLDER_PATTERN, LESSON_MD, type LessonFiles } from '../lessons/parse.js';
import { optionOrder, storyAskKey } from '../lessons/option-order.js';
import { sweepCommand } from '../lessons/sweeps.js';
import { findEvent } from '../lessons/query.js';
import { judge, overridesOf, scenarioOf } from '../lessons/runs.js';
import { reproduceCommand } from '../reproduce.js';
import type { Json, Lesson, LessonProblem, Story } from '../lessons/types.js';
import { describe } from '../trace/describe.js';
import { formatInstant } from '../time.js';
import { nearestOwnFile } from './files.js';

/**
 * The lessons of the repository: the nearest lessons/ with a claims.yaml above
 * the command's code. The published package does not ship lessons; there this is ''.
 */
const claimsFound = nearestOwnFile(join('lessons', CLAIMS_FILE));
export const LESSONS_DIR = claimsFound === '' ? '' : dirname(claimsFound);

function shippedClaims(): string {
  if (LESSONS_DIR === '')
    throw new InputError('lessons', [
      { path: '', message: 'no lessons/ folder with a claims.yaml was found: the lessons come with the Locklab repository, not the package' },
    ]);
  return readFileSync(join(LESSONS_DIR, CLAIMS_FILE), 'utf8');
}

function readFolder(dir: string): LessonFiles {
  const files: Record<string, string> = {};
  for (const f of readdirSync(dir)) {
    const p = join(dir, f);
    if (statSync(p).isFile()) files[f] = readFileSync(p, 'utf8');
  }
  return files;
}

/**
 * Reads a lessons folder (claims.yaml and NN-id folders) or a single lesson
 * folder, which is checked against the shipped claims and beside the shipped
 * lessons it does not replace.
 */
export function readCourse(dir: string): { files: CourseFiles; only: string | undefined } {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new InputError(dir, [{ path: '', message: 'is not a folder' }]);
  if (existsSync(join(dir, LESSON_MD))) {
    const claims = shippedClaims();
    return { files: { claims, lessons: { [basename(resolve(dir))]: readFolder(dir) } }, only: basename(resolve(dir)) };
  }
  const claimsPath = join(dir, CLAIMS_FILE);
  const claims = existsSync(claimsPath) ? readFileSync(claimsPath, 'utf8') : shippedClaims();
  const lessons: Record<string, LessonFiles> = {};
  for (const d of readdirSync(dir).sort()) {
    const p = join(dir, d);
    if (statSync(p).isDirectory() && (FOLDER_PATTERN.test(d) || existsSync(join(p, LESSON_MD)))) lessons[d] = readFolder(p);
  }
  if (Object.keys(lessons).length === 0)
    throw new InputError(dir, [{ path: '', message: `holds no lesson folders (NN-id with a ${LESSON_MD}) and is not one itself` }]);
  return { files: { claims, lessons }, only: undefined };
}

export function loadLessons(dir: string = LESSONS_DIR, replay = true): LoadedCourse {
  if (dir === '') shippedClaims();
  const { files, only } = readCourse(dir);
  return loadCourse(files, { replay, course: only === undefined });
}

/**
 * The stories of `lesson` that `which` names: all of them, in the lesson's
 * order, when it is undefined; else the one with that number (from 1) or id.
 * A name that picks none is an InputError that lists the stories there are.
 */
export function storiesOf(lesson: Lesson, which: string | undefined): readonly Story[] {
  if (which === undefined) return lesson.stories;
  const n = /^\d+$/.test(which) ? Number(which) : NaN;
  const story = lesson.stories.find((s, i) => s.id === which || i + 1 === n);
  if (story !== undefined) return [story];
  const there = lesson.stories.map((s, i) => `${i + 1} (${s.id})`).join(', ');
  throw new InputError('--story', [
    { path: '', message: `lesson ${lesson.number} has no story ${JSON.stringify(which)}; its stories are ${there === '' ? 'none' : there}` },
  ]);
}

/**
 * Narrates a lesson's stories in the terminal (all of them, or those
 * `storiesOf` picks): each stop's caption beside the events that led to it,
 * then each "try this" of the story with what it shows and the command that
 * runs it, the scenario's file named from the lesson's folder `dir`. The
 * whole lesson ends with its sweeps, each as the `locklab sweep` command that
 * runs it, since a terminal has no Odds view to open.
 */
export function narrate(lesson: Lesson, c: Colors, stories: readonly Story[] = lesson.stories, dir?: string): string {
  const out: string[] = [c.bold(`Lesson ${lesson.number}: ${lesson.title}`), c.dim(lesson.summary), ''];
  const whole = stories === lesson.stories;
  if (stories.length === 0) out.push('This lesson has no story to narrate; open it in the lab.', '');
  for (const story of stories) {
    if (lesson.stories.length > 1) out.push(c.bold(c.cyan(`Story ${lesson.stories.indexOf(story) + 1} of ${lesson.stories.length}`)));
    out.push(...narrateStory(lesson, story, c, dir), '');
  }
  if (whole)
    for (const sweep of lesson.sweeps)
      out.push(c.bold(c.cyan(`Sweep: ${sweep.title}`)), `  ${sweep.caption}`, `  ${c.yellow('Run it:')} ${sweepCommand(sweep)}`, '');
  return out.join('\n').trimEnd();
}

/** One story, told stop by stop, the checker's outcome of its last run, and its "try this" changes, each run. */
function narrateStory(lesson: Lesson, story: Story, c: Colors, dir: string | undefined): string[] {
  const out: string[] = [];
  const scenario = lesson.scenarios[story.scenario]!;
  out.push(c.bold(story.title) + c.dim(` · ${scenario.file} · seed ${scenario.seed}`), '');
  let set: Record<string, Json> = {};
  let run = judge(scenarioOf(scenario, { scenario: story.scenario, set }), scenario.seed);
  let from = 0;
  for (const stop of story.stops) {
    if (stop.set !== undefined) {
      set = { ...set, ...stop.set };
      run = judge(scenarioOf(scenario, { scenario: story.scenario, set }), scenario.seed);
      from = 0;
      out.push(
        c.bold(
          c.cyan(
            `— the same story again, with ${Object.entries(stop.set)
              .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
              .join(', ')} —`,
          ),
        ),
        '',
      );
    }
    const e = findEvent(run.doc.events, stop.at)!;
    for (const ev of run.doc.events.slice(from, e.seq + 1)) {
      if (ev.kind.endsWith('.request') || ev.kind === 'work.start') continue;
      const line = `${formatInstant(ev.timeUs).padStart(10)}  ${`${ev.actor}@${ev.machine}`.padEnd(20)} ${describe(ev)}`;
      out.push(ev.seq === e.seq ? c.bold(line) : c.dim(line));
    }
    from = e.seq + 1;
    if (stop.ask !== undefined) {
      out.push('', `  ${c.yellow('?')} ${stop.ask.prompt}`);
      // In the order the lab shows them in.
      optionOrder(lesson.id, storyAskKey(story.id, stop.id), stop.ask.options.length).forEach((k, i) => {
        const o = stop.ask!.options[k]!;
        out.push(`    ${String.fromCharCode(97 + i)}) ${o.text}${o.correct ? c.green('  ← this one') : ''}`);
      });
    }
    out.push('', `  ${c.green('▶')} ${fillCaption(stop.text, e).text}`, '');
  }
  const verdict = run.judged.verdict;
  out.push(c.bold(`Outcome: ${verdict.outcome}`));
  for (const s of summarize(verdict)) out.push(`  ${s}`);
  for (const t of story.tries) {
    const tried = judge(scenarioOf(scenario, { scenario: story.scenario, set: t.set }), scenario.seed);
    out.push('', `${c.yellow('Try this:')} ${t.label} ${c.dim(`(outcome: ${tried.judged.verdict.outcome})`)}`, `  ${t.says}`);
    if (dir !== undefined) out.push(c.dim(`  ${reproduceCommand(relative(process.cwd(), join(dir, scenario.file)), scenario.seed, overridesOf(t.set))}`));
  }
  return out;
}

/** The problems found in the files of the lesson `arg` names by number, id or folder name (its folder is `NN-id`). */
export function problemsOfLesson(problems: readonly LessonProblem[], arg: string): LessonProblem[] {
  const number = arg.replace(/^0+(?=\d)/, '');
  return problems.filter((p) => {
    const folder = FOLDER_PATTERN.exec(p.file.split('/')[0] ?? '');
    return folder !== null && (String(Number(folder[1])) === number || folder[2] === arg || folder[0] === arg);
  });
}

/** The lesson `locklab lesson` narrates, or what stops it: the problems of its files, or why there is no such lesson. */
export type LessonChoice =
  { readonly lesson: Lesson; /** Its folder. */ readonly dir: string } | { readonly problems: readonly LessonProblem[] } | { readonly unknown: string };

/**
 * Finds the lesson `arg` names: a shipped lesson's number, id or folder name
 * (`04-pause-past-expiry`, as the lab's address names it), or a lesson
 * folder of one's own (a path to a folder with a lesson.md), read as
 * `locklab lessons check` reads one. A lesson whose files have problems is
 * left out of the course, so its problems are what is given back: never a
 * claim that the lesson does not exist.
 */
export function chooseLesson(arg: string): LessonChoice {
  if (existsSync(join(arg, LESSON_MD))) {
    const course = loadLessons(arg, false);
    const lesson = course.lessons.find((l) => l.folder === basename(resolve(arg)));
    return lesson !== undefined && course.problems.length === 0 ? { lesson, dir: resolve(arg) } : { problems: course.problems };
  }
  const course = loadLessons(LESSONS_DIR, false);
  const number = arg.replace(/^0+(?=\d)/, '');
  const lesson = course.lessons.find((l) => String(l.number) === number || l.id === arg || l.folder === arg);
  if (lesson !== undefined) return { lesson, dir: join(LESSONS_DIR, lesson.folder) };
  const own = problemsOfLesson(course.problems, arg);
  if (own.length > 0) return { problems: own };
  const looksLikePath = arg.includes('/') || existsSync(arg);
  return {
    unknown: looksLikePath
      ? `${arg} is not a lesson folder (one with a ${LESSON_MD})`
      : `no lesson ${JSON.stringify(arg)}; the lessons are ${course.lessons.map((l) => l.number).join(', ')} (see \`locklab lessons\`)`,
  };
}
