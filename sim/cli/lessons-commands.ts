import type { Command } from 'commander';
import type { Colors } from 'picocolors/types.js';
import { counted } from '../words.js';
import type { Io } from './main.js';

/**
 * The lessons' machinery (YAML, Markdown, their schemas), loaded when a
 * lesson command runs: the other commands start without it.
 */
async function lessonTools(): Promise<
  typeof import('./lessons.js') & typeof import('../lessons/course.js') & typeof import('../lessons/load.js') & typeof import('../lessons/parse.js')
> {
  const [cli, course, load, parse] = await Promise.all([
    import('./lessons.js'),
    import('../lessons/course.js'),
    import('../lessons/load.js'),
    import('../lessons/parse.js'),
  ]);
  return { ...cli, ...course, ...load, ...parse };
}

/** Exit code for a lesson folder with problems: the author's mistake, like any bad input. */
const BAD_LESSON = 2;

/** `locklab lessons`, `locklab lessons check [dir]` and `locklab lesson N`. */
export function addLessonCommands(program: Command, io: Io, c: Colors, exit: (code: number) => void): void {
  const lessons = program
    .command('lessons')
    .description('List the lessons, with their claims, questions, predictions, stories and challenges.')
    .option('--json', 'print the list as JSON')
    .action(async (opts: { json?: boolean }) => {
      const { loadLessons, LESSONS_DIR, formatProblem, countsOf } = await lessonTools();
      const course = loadLessons(LESSONS_DIR, false);
      if (course.problems.length > 0) {
        for (const p of course.problems) io.err(`locklab: ${formatProblem(p)}\n`);
        exit(BAD_LESSON);
        return;
      }
      const list = course.lessons.map((l) => ({ number: l.number, id: l.id, title: l.title, claims: l.claims, ...countsOf(l) }));
      if (opts.json === true) {
        io.out(`${JSON.stringify(list, null, 2)}\n`);
        return;
      }
      for (const l of list) {
        io.out(`${c.bold(String(l.number).padStart(2))}  ${c.bold(l.title)}  ${c.dim(l.id)}\n`);
        io.out(
          `    ${c.dim(`claims ${l.claims.join(' ')} · ${counted(l.questions, 'question')}, ${counted(l.predictions, 'prediction')}, ${counted(l.stories, 'story', { plural: 'stories' })} (${counted(l.stops, 'stop')}), ${counted(l.challenges, 'challenge')}`)}\n`,
        );
      }
      io.out(c.dim(`\nNarrate a lesson's stories: locklab lesson N. Check a lesson folder: locklab lessons check DIR.\n`));
    });

  lessons
    .command('check')
    .description('Check lessons by the rules of the build: every file, field, query, quiz, challenge and claim (exit 2 on any problem).')
    .argument('[dir]', 'a lessons folder, or one lesson folder (default: the shipped lessons)')
    .action(async (dir: string | undefined) => {
      const { loadLessons, LESSONS_DIR, formatProblem, coverageOf } = await lessonTools();
      const course = loadLessons(dir ?? LESSONS_DIR, true);
      if (course.problems.length > 0) {
        for (const p of course.problems) io.err(`locklab: ${formatProblem(p)}\n`);
        io.err(`locklab: ${counted(course.problems.length, 'problem')} found\n`);
        exit(BAD_LESSON);
        return;
      }
      const coverage = coverageOf(course.lessons, course.claims);
      const pending = coverage.filter((k) => k.pending.some((p) => p.part === 'all') && k.shownBy.length === 0).map((k) => k.claim.id);
      const textOnly = coverage.filter((k) => k.shownBy.length === 0 && k.textOnly.length > 0).map((k) => k.claim.id);
      io.out(`${counted(course.lessons.length, 'lesson')} checked: every run, stop, question and challenge holds.\n`);
      if (dir === undefined || course.lessons.length > 1)
        io.out(
          `${coverage.length - pending.length - textOnly.length} claims shown by runs; taught in text only: ${textOnly.join(', ') || 'none'}; pending: ${pending.join(', ') || 'none'}.\n`,
        );
    });

  program
    .command('lesson')
    .description("Narrate a lesson's stories in the terminal, stop by stop.")
    .argument('<lesson>', "the lesson number, id or folder name (see `locklab lessons`; the lab's address names the folder), or a lesson folder of your own")
    .option('--story <story>', 'only this story: its number in the lesson (from 1) or its id')
    .action(async (n: string, opts: { story?: string }) => {
      const { chooseLesson, narrate, storiesOf, formatProblem } = await lessonTools();
      const choice = chooseLesson(n);
      if ('lesson' in choice) {
        io.out(`${narrate(choice.lesson, c, storiesOf(choice.lesson, opts.story), choice.dir)}\n`);
        return;
      }
      if ('problems' in choice) {
        for (const p of choice.problems) io.err(`locklab: ${formatProblem(p)}\n`);
        const many = choice.problems.length > 1;
        io.err(`locklab: lesson ${n} cannot be narrated until ${many ? 'these problems are' : 'this problem is'} fixed (see \`locklab lessons check\`)\n`);
      } else io.err(`locklab: ${choice.unknown}\n`);
      exit(BAD_LESSON);
    });
}
