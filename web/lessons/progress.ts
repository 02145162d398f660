import { create } from 'zustand';
import { forget, isRecord, readVersioned, recall, remember } from '../state/remembered.js';
import { useUi } from '../state/ui.js';

/*
 * A learner's progress, kept in this browser only: answers, stops reached,
 * challenges solved, and where they were last. Stored as one versioned JSON
 * value; anything unreadable is dropped with a notice and the lab goes on.
 */

export const PROGRESS_KEY = 'locklab.progress';
const VERSION = 1;

export interface Progress {
  /** Chosen option indexes, by lesson id and question id (a stop's question is `stop:<story>/<stop>`). */
  answers: Record<string, Record<string, number[]>>;
  /** Stops reached, by lesson id, as `<story>/<stop>`. */
  stops: Record<string, string[]>;
  /** Solved challenges, by lesson id. */
  solved: Record<string, string[]>;
  /** Where the learner was last: a lesson and an anchor in it, or the free lab. */
  last: { lesson: string; anchor: string | null } | { lab: true } | null;
}

const EMPTY: Progress = { answers: {}, stops: {}, solved: {}, last: null };

const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** Reads stored progress; returns why it could not, so the caller can say so. */
export function parseProgress(text: string): { ok: true; progress: Progress } | { ok: false; why: string } {
  const read = readVersioned(text, VERSION, 'progress');
  if (!read.ok) return read;
  const data = read.data;
  const { answers, stops, solved, last } = data;
  if (!isRecord(answers) || !Object.values(answers).every((a) => isRecord(a) && Object.values(a).every((x) => Array.isArray(x) && x.every(Number.isInteger))))
    return { ok: false, why: 'its answers are malformed' };
  if (!isRecord(stops) || !Object.values(stops).every(isStringList)) return { ok: false, why: 'its stops are malformed' };
  if (!isRecord(solved) || !Object.values(solved).every(isStringList)) return { ok: false, why: 'its solved challenges are malformed' };
  const lastOk =
    last === null || (isRecord(last) && (last.lab === true || (typeof last.lesson === 'string' && (last.anchor === null || typeof last.anchor === 'string'))));
  if (!lastOk) return { ok: false, why: 'its last place is malformed' };
  return { ok: true, progress: { answers, stops, solved, last } as Progress };
}

function readStored(): { progress: Progress; stored: boolean } {
  const text = recall('progress');
  if (text === null) return { progress: EMPTY, stored: false };
  const r = parseProgress(text);
  if (r.ok) return { progress: r.progress, stored: true };
  forget('progress');
  useUi.getState().set({
    notice: {
      title: 'Your saved lesson progress could not be read, so it was reset',
      source: 'progress',
      issues: [{ path: PROGRESS_KEY, message: `was discarded because ${r.why}` }],
      tone: 'info',
    },
  });
  return { progress: EMPTY, stored: false };
}

function write(p: Progress): void {
  remember('progress', JSON.stringify({ version: VERSION, ...p }));
}

interface ProgressState extends Progress {
  /** Whether anything was stored when the page opened: a first visit has nothing. */
  returning: boolean;
  answer(lesson: string, question: string, chosen: number[]): void;
  /** Forgets one answer, so the question can be answered again. */
  unanswer(lesson: string, question: string): void;
  reachStop(lesson: string, stop: string): void;
  solve(lesson: string, challenge: string): void;
  place(last: Progress['last']): void;
  reset(): void;
}

const initial = readStored();

export const useProgress = create<ProgressState>()((set, get) => {
  const save = (patch: Partial<Progress>) => {
    set(patch);
    const { answers, stops, solved, last } = get();
    write({ answers, stops, solved, last });
  };
  return {
    ...initial.progress,
    returning: initial.stored,
    answer: (lesson, question, chosen) => save({ answers: { ...get().answers, [lesson]: { ...get().answers[lesson], [question]: chosen } } }),
    unanswer: (lesson, question) => {
      const { [question]: _gone, ...rest } = get().answers[lesson] ?? {};
      save({ answers: { ...get().answers, [lesson]: rest } });
    },
    reachStop: (lesson, stop) => {
      const have = get().stops[lesson] ?? [];
      if (!have.includes(stop)) save({ stops: { ...get().stops, [lesson]: [...have, stop] } });
    },
    solve: (lesson, challenge) => {
      const have = get().solved[lesson] ?? [];
      if (!have.includes(challenge)) save({ solved: { ...get().solved, [lesson]: [...have, challenge] } });
    },
    place: (last) => save({ last }),
    reset: () => {
      save({ ...EMPTY });
      set({ returning: false });
    },
  };
});
