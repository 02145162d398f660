import { matches } from './answers.js';
import type { Progress } from './progress.js';
import type { LessonSummary } from './types.js';

/** The stories' questions answered, in words for a status line: " (2 of 3 guesses right)", or nothing before the first. */
export function guessesText(s: Pick<LessonStatus, 'guessed' | 'guessedRight'>): string {
  return s.guessed === 0 ? '' : ` (${s.guessedRight} of ${s.guessed} ${s.guessed === 1 ? 'guess' : 'guesses'} right)`;
}

/** A story's size before it is played: "4 stops; 1 of them asks you first", "8 stops; no stop asks you first". */
export function stopsText(stops: ReadonlyArray<{ readonly ask?: unknown }>): string {
  const asking = stops.filter((s) => s.ask !== undefined).length;
  const ask = asking === 0 ? 'no stop asks' : asking === 1 ? '1 of them asks' : `${asking} of them ask`;
  return `${stops.length} stop${stops.length === 1 ? '' : 's'}; ${ask} you first.`;
}

/**
 * A status line's parts, joined by " · ", each dot held to the part before
 * it by a no-break space: where the line wraps, the next line starts with a
 * part, never with a dot. Parts that are false are left out.
 */
export function statusLine(parts: ReadonlyArray<string | false>): string {
  return parts.filter((p): p is string => p !== false).join('\u00a0· ');
}

/** How far a learner got in a lesson, from their stored progress. */
export interface LessonStatus {
  readonly answered: number;
  /** Of those, answered right. */
  readonly right: number;
  readonly questions: number;
  readonly storiesDone: number;
  readonly stories: number;
  /** The questions the stories ask before a stop that were answered, and how many of them right. */
  readonly guessed: number;
  readonly guessedRight: number;
  readonly solved: number;
  readonly challenges: number;
  /** Every question answered and every story played to its last stop. */
  readonly finished: boolean;
  readonly started: boolean;
}

export function statusOf(l: LessonSummary, p: Pick<Progress, 'answers' | 'stops' | 'solved'>): LessonStatus {
  const answers = p.answers[l.id] ?? {};
  const stops = p.stops[l.id] ?? [];
  const answered = l.questions.filter((q) => answers[q] !== undefined).length;
  const right = l.questions.filter((q) => answers[q] !== undefined && matches(l.rightAnswers[q] ?? [], answers[q]!)).length;
  const storiesDone = l.stories.filter((s) => stops.includes(`${s.id}/${s.lastStop}`)).length;
  const guesses = Object.entries(l.asks).filter(([key]) => answers[key] !== undefined);
  const guessedRight = guesses.filter(([key, right]) => matches(right, answers[key]!)).length;
  const solved = l.challenges.filter((c) => (p.solved[l.id] ?? []).includes(c)).length;
  return {
    answered,
    right,
    questions: l.questions.length,
    storiesDone,
    stories: l.stories.length,
    guessed: guesses.length,
    guessedRight,
    solved,
    challenges: l.challenges.length,
    finished: answered === l.questions.length && storiesDone === l.stories.length,
    started: answered > 0 || guesses.length > 0 || stops.length > 0 || solved > 0,
  };
}
