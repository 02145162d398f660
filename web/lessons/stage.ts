import { create } from 'zustand';
import { check } from '../../sim/check/checker.js';
import type { Verdict } from '../../sim/check/verdict.js';
import { evaluateAll, type Checked } from '../../sim/lessons/expect.js';
import { overrideStrings, rawOf } from '../../sim/lessons/refs.js';
import type { Expect, Lesson, RunRef } from '../../sim/lessons/types.js';
import { runOrigin, showPrimary } from '../state/session.js';
import type { LoadedTrace } from '../state/traces.js';
import { useUi } from '../state/ui.js';

/*
 * The lab has one playhead, so one embed of a lesson at a time owns the
 * timeline: the story being played, the prediction just replayed, or the
 * challenge attempt. The others show their text and a button to take it.
 */
export const useStage = create<{ owner: string | null; take(owner: string): void }>()((set) => ({
  owner: null,
  take: (owner) => set({ owner }),
}));

/** Runs one of a lesson's scenarios in the worker, pinned to its seed unless told otherwise; null if the worker refused it. */
export async function runRef(lesson: Lesson, ref: RunRef, seed?: number): Promise<LoadedTrace | null> {
  const s = lesson.scenarios[ref.scenario]!;
  return runOrigin({ kind: 'scenario', raw: rawOf(s, ref), seed: seed ?? s.seed, overrides: overrideStrings(ref.set) }, `${lesson.number}. ${s.file}`);
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
