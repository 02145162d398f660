import { check } from '../check/checker.js';
import { InputError } from '../errors.js';
import type { Scenario } from '../scenario/types.js';
import type { TraceEvent } from '../trace/types.js';
import { fillCaption } from './caption.js';
import { evaluateAll, type Judged } from './expect.js';
import { LESSON_DATA } from './parse.js';
import { findEvent, describeQuery } from './query.js';
import { judge, scenarioOf } from './runs.js';
import { attemptRef, changesOf, type Attempt } from './attempt.js';
import type { Challenge, Json, Lesson, LessonProblem, RunRef, Stop } from './types.js';

/**
 * Replays every run a lesson embeds and checks what the lesson says about
 * them: each statement of `shows` and of the "try this" toggles holds, each
 * stop's query finds an event (in story order) and its statements hold on
 * the run so far, each prediction's right
 * options are exactly those the replayed run bears out, and each challenge
 * fails unchanged and passes with its reference solution.
 */
export function checkLesson(lesson: Lesson): LessonProblem[] {
  const file = `${lesson.folder}/${LESSON_DATA}`;
  const problems: LessonProblem[] = [];
  const problem = (field: string, message: string) => problems.push({ file, field, message });
  const cache = new Map<string, Judged | null>();

  /** Runs a reference once; reports a scenario or override error at `field` and returns null. */
  const run = (ref: RunRef, field: string, seed?: number): Judged | null => {
    const key = JSON.stringify([ref.scenario, ref.set ?? {}, ref.addFaults ?? [], seed ?? null]);
    if (cache.has(key)) return cache.get(key)!;
    const s = lesson.scenarios[ref.scenario];
    let result: Judged | null = null;
    if (s !== undefined) {
      let scenario: Scenario | undefined;
      try {
        scenario = scenarioOf(s, ref);
      } catch (err) {
        if (!(err instanceof InputError)) throw err;
        for (const i of err.issues) problem(field, `${i.path === '' ? '' : `${i.path}: `}${i.message}`);
      }
      if (scenario !== undefined) result = judge(scenario, seed ?? s.seed).judged;
    }
    cache.set(key, result);
    return result;
  };
  const holds = (field: string, xs: Parameters<typeof evaluateAll>[0], judged: Judged) => {
    const r = evaluateAll(xs, judged);
    r.checked.forEach((c, i) => {
      if (!c.ok) problem(`${field}[${i}]`, `expected ${c.statement}, but ${c.found}`);
    });
  };

  lesson.shows.forEach((s, i) => {
    const j = run(s, `shows[${i}]`);
    if (j !== null) holds(`shows[${i}].expect`, s.expect, j);
  });

  lesson.stories.forEach((story, i) => {
    let set: Record<string, Json> = {};
    let lastSeq = -1;
    story.stops.forEach((stop, k) => {
      const field = `stories[${i}].stops[${k}]`;
      if (stop.set !== undefined) {
        set = { ...set, ...stop.set };
        lastSeq = -1;
      }
      const j = run({ scenario: story.scenario, set }, field);
      if (j === null) return;
      const e: TraceEvent | undefined = findEvent(j.events, stop.at);
      if (e === undefined) {
        problem(`${field}.at`, `finds no event: there is no ${describeQuery(stop.at).replace(/^the first /, '')} in the run`);
        return;
      }
      if (e.seq < lastSeq) problem(`${field}.at`, `finds event ${e.seq}, before the previous stop's event ${lastSeq}; stops go in story order`);
      lastSeq = e.seq;
      const missing = fillCaption(stop.text, e).missing;
      if (missing.length > 0) problem(`${field}.text`, `quotes ${missing.map((m) => `{${m}}`).join(', ')}, which event ${e.seq} (${e.kind}) does not have`);
      checkStopFindings(stop, e, j, field, holds, problem);
    });
    story.tries.forEach((t, k) => {
      const j = run({ scenario: story.scenario, set: t.set }, `stories[${i}].tries[${k}]`);
      if (j !== null) holds(`stories[${i}].tries[${k}].expect`, t.expect, j);
    });
  });

  lesson.quiz.forEach((q, i) => {
    if (q.predict === undefined) return;
    const j = run(q.predict, `quiz[${i}].predict`);
    if (j === null) return;
    q.options.forEach((o, k) => {
      const happened = evaluateAll(o.expect ?? [], j);
      if (o.correct && !happened.ok) {
        const miss = happened.checked.find((c) => !c.ok)!;
        problem(`quiz[${i}].options[${k}]`, `is marked right, but the replayed run does not bear it out: expected ${miss.statement}, but ${miss.found}`);
      }
      if (!o.correct && happened.ok) problem(`quiz[${i}].options[${k}]`, 'is marked wrong, but the replayed run shows exactly what it predicts');
    });
  });

  lesson.challenges.forEach((c, i) => checkChallenge(c, `challenges[${i}]`, run, problem, lesson.scenarios[c.scenario]?.seed ?? 0));
  return problems;
}

/**
 * Holds a stop's caption to the run as far as the learner has watched it:
 * the stop's statements are checked on the events up to and including its
 * event, judged by the checker as that much of the trace stands, which is
 * what the timeline's marks and the findings panel show at that moment. A
 * stop placed on a write the checker flags as stale must say so in a
 * statement, so that a caption cannot call the damage harmless (or put it
 * on another write) without the check noticing.
 */
function checkStopFindings(
  stop: Stop,
  e: TraceEvent,
  run: Judged,
  field: string,
  holds: (field: string, xs: Parameters<typeof evaluateAll>[0], judged: Judged) => void,
  problem: (field: string, message: string) => void,
): void {
  const events = run.events.filter((x) => x.seq <= e.seq);
  const soFar: Judged = { events, verdict: check(events), stop: run.stop };
  if (stop.expect !== undefined) holds(`${field}.expect`, stop.expect, soFar);
  for (const w of soFar.verdict.staleWrites) {
    if (w.seq !== e.seq) continue;
    const said = (stop.expect ?? []).some((x) => 'staleWrite' in x && x.staleWrite !== 'none' && x.staleWrite.client === w.client);
    if (!said)
      problem(
        `${field}.expect`,
        `is missing: the stop is at ${w.client}'s write, which the checker flags as stale (${w.accepted ? 'accepted' : 'rejected by fencing'}); say so in the caption, and hold it to the run with { staleWrite: { client: ${w.client}, accepted: ${w.accepted} } }`,
      );
  }
}

function checkChallenge(
  c: Challenge,
  field: string,
  run: (ref: RunRef, field: string, seed?: number) => Judged | null,
  problem: (field: string, message: string) => void,
  pinned: number,
): void {
  const seeds = c.seeds ?? [pinned];
  const unchanged = seeds.map((seed) => run({ scenario: c.scenario }, `${field}.scenario`, seed));
  if (unchanged.every((j) => j !== null && evaluateAll(c.success, j).ok))
    problem(`${field}.success`, 'already holds for the unchanged scenario: there is nothing to solve');
  const attempt: Attempt = { set: c.solution.set ?? {}, fault: c.solution.addFault ?? null };
  for (const seed of seeds) {
    const solved = run(attemptRef(c, attempt), `${field}.solution`, seed);
    if (solved === null) continue;
    const miss = evaluateAll(c.success, solved).checked.find((x) => !x.ok);
    if (miss !== undefined) problem(`${field}.solution`, `does not solve the challenge with seed ${seed}: expected ${miss.statement}, but ${miss.found}`);
  }
  if (c.maxChanges !== undefined) {
    const n = changesOf(c, attempt);
    if (n > c.maxChanges) problem(`${field}.solution`, `makes ${n} changes, more than maxChanges (${c.maxChanges})`);
  }
}
