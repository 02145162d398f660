import { create } from 'zustand';
import { check } from '../../sim/check/checker.js';
import type { Verdict } from '../../sim/check/verdict.js';
import { evaluateAll, type Checked } from '../../sim/lessons/expect.js';
import { overrideStrings, rawOf } from '../../sim/lessons/refs.js';
import type { Expect, Lesson, RunRef } from '../../sim/lessons/types.js';
import { runOrigin, showPrimary, startRun } from '../state/session.js';
import type { LoadedTrace, Origin } from '../state/traces.js';
import type { TracePayload } from '../worker/protocol.js';
import { useUi } from '../state/ui.js';

type ScenarioOrigin = Extract<Origin, { kind: 'scenario' }>;

/*
 * The lab has one playhead, so one embed of a lesson at a time owns the
 * timeline: the story being played, the prediction just replayed, or the
 * challenge attempt. The others show their text and a button to take it.
 */
export const useStage = create<{ owner: string | null; take(owner: string): void }>()((set) => ({
  owner: null,
  take: (owner) => set({ owner }),
}));

function originOf(lesson: Lesson, ref: RunRef, seed?: number): { origin: ScenarioOrigin; label: string } {
  const s = lesson.scenarios[ref.scenario]!;
  return { origin: { kind: 'scenario', raw: rawOf(s, ref), seed: seed ?? s.seed, overrides: overrideStrings(ref.set) }, label: `${lesson.number}. ${s.file}` };
}

const keyOf = (o: ScenarioOrigin): string => JSON.stringify([o.raw, o.seed, o.overrides]);

/** Runs started before they were asked for, by what they run: the same run gives the same trace, so the first ask takes it. */
const begun = new Map<string, Promise<TracePayload>>();

/**
 * Starts one of a lesson's runs in the worker while the learner reads (a
 * story's first run, as its lesson opens), so that Play shows it at once.
 * Nothing is shown or reported until it is asked for with runRef.
 */
export function runEarly(lesson: Lesson, ref: RunRef): void {
  const { origin } = originOf(lesson, ref);
  const key = keyOf(origin);
  if (begun.has(key)) return;
  const run = startRun(origin);
  // A refused run is run again when it is asked for, and its refusal reported then.
  run.catch(() => begun.delete(key));
  begun.set(key, run);
}

/**
 * Starts the first run of each of a lesson's stories, in the order the page
 * shows them, as soon as the lesson has loaded: the worker computes them
 * while the lesson's text is laid out, so Play finds its run ready.
 */
export function runStoriesEarly(lesson: Lesson): void {
  const place = (id: string) => {
    const i = lesson.body.indexOf(`::story{id=${id}}`);
    return i < 0 ? Number.POSITIVE_INFINITY : i;
  };
  for (const story of [...lesson.stories].sort((a, b) => place(a.id) - place(b.id)))
    runEarly(lesson, { scenario: story.scenario, set: story.stops[0]?.set ?? {} });
}

/** Runs one of a lesson's scenarios in the worker, pinned to its seed unless told otherwise; null if the worker refused it. */
export async function runRef(lesson: Lesson, ref: RunRef, seed?: number): Promise<LoadedTrace | null> {
  const { origin, label } = originOf(lesson, ref, seed);
  const key = keyOf(origin);
  const early = begun.get(key);
  begun.delete(key);
  return runOrigin(origin, label, early);
}

/** Shows a trace on the lab's timeline for `owner`, with the playhead before the first event. */
export function stage(owner: string, t: LoadedTrace, secondary: LoadedTrace | null = null): void {
  showPrimary(t);
  useUi.getState().set({ secondaryId: secondary?.id ?? null, secondaryNote: secondary?.label ?? '', playing: false });
  useStage.getState().take(owner);
}

/** The checker's verdict on a trace, always recomputed from its events. */
export function verdictOf(t: LoadedTrace): Verdict {
  return check(t.doc.events);
}

export function judgeTrace(xs: readonly Expect[], t: LoadedTrace): { ok: boolean; checked: Checked[] } {
  return evaluateAll(xs, { events: t.doc.events, verdict: verdictOf(t), stop: t.doc.stop.reason });
}
