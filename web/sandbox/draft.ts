import { create } from 'zustand';
import type { InputIssue } from '../../sim/errors.js';
import type { ClientSpec, Scenario } from '../../sim/scenario/types.js';

/**
 * The scenario being edited in the Sandbox. It is always a complete
 * scenario (every default filled in by the worker), so every field has a
 * form control; the worker validates it again before running.
 */
export interface DraftState {
  draft: Scenario | null;
  /** The draft as it was loaded or last run: edits since make it dirty, and dropping them asks first. */
  clean: Scenario | null;
  /** Where the draft came from (a built-in's name and overrides, a file, a trace), so a link can tell whether it already shows it. */
  from: string;
  /** The draft the last run ran, to tell whether the result beside the form is still its result. */
  ran: Scenario | null;
  /** Problems to show; `form` is the form's scenario they were found in, when they are its own. */
  issues: { source: string; issues: readonly InputIssue[]; what?: string; form?: Scenario } | null;
  lastTraceId: string | null;
  /**
   * The lab's trace the form last followed, or was shown beside: the Sandbox
   * opens on the lab's trace only when it is another one, so leaving the
   * Sandbox and coming back keeps the form as it was.
   */
  seen: string | null;
  /**
   * Whether the form holds the lab's trace's scenario, opened unchanged to
   * follow it (or the lab's first scenario): the address brings that back
   * on a reload, so the tab keeps no copy of it (see kept.ts).
   */
  followed: boolean;
  /**
   * What the user typed in the form's JSON boxes, by the path of the value
   * each edits (`clients.0.steps`): text that is not JSON yet never reaches
   * the draft, and a reload must still put it back as it was.
   */
  texts: Readonly<Record<string, string>>;
  setDraft(d: Scenario, from: string, followed?: boolean): void;
  update(path: readonly (string | number)[], value: unknown): void;
  setIssues(i: DraftState['issues']): void;
  /** The draft ran as `traceId`: it is clean again and the result is its own. */
  markRun(traceId: string): void;
  /** The user typed `text` in the JSON box of the value at `path`. */
  keepText(path: string, text: string): void;
}

/**
 * `seen` after a reload brought the draft back: the first trace the lab
 * shows is the one its address carries, which the form had already seen.
 */
export const SEEN_BEFORE_RELOAD = '(before the reload)';

/** `from` of a draft a reload brought back from a trace (run here, or opened from the lab's): the trace, and its id, went with the page. */
export const TRACE_BEFORE_RELOAD = 'trace:before-reload';

/** A JSON box's key in `texts`: the path of the value it edits. */
export const textKey = (path: readonly (string | number)[]): string => path.join('.');

/** Whether the text typed for the value at `key` is still about it after an edit: the same value, in the same place. */
function stillAbout(key: string, before: unknown, after: unknown): boolean {
  let was = before;
  let is = after;
  for (const part of key.split('.')) {
    // A list that grew or shrank (a client removed) moved what followed: the box at this place now shows another item.
    if (Array.isArray(was) && Array.isArray(is) && was.length !== is.length && was[Number(part)] !== is[Number(part)]) return false;
    was = typeof was === 'object' && was !== null ? (was as Record<string, unknown>)[part] : undefined;
    is = typeof is === 'object' && is !== null ? (is as Record<string, unknown>)[part] : undefined;
  }
  return was === is;
}

/**
 * The typed texts still about the values they were typed for: an edit
 * elsewhere (a client removed, so the next one takes its place) leaves a
 * box's value another one, and its text with it. setIn keeps every value
 * it does not replace, so an unchanged one is the same object.
 */
function textsAfter(texts: DraftState['texts'], before: Scenario, after: Scenario, edited: string): DraftState['texts'] {
  const keys = Object.keys(texts);
  if (keys.length === 0) return texts;
  const kept = Object.fromEntries(Object.entries(texts).filter(([k]) => k === edited || stillAbout(k, before, after)));
  return Object.keys(kept).length === keys.length ? texts : kept;
}

/** Returns a copy of `obj` with the value at `path` replaced; the original is never changed. */
export function setIn<T>(obj: T, path: readonly (string | number)[], value: unknown): T {
  if (path.length === 0) return value as T;
  const [head, ...rest] = path;
  const src = obj as unknown as Record<string | number, unknown>;
  const copy = (Array.isArray(obj) ? [...(obj as unknown[])] : { ...src }) as Record<string | number, unknown>;
  copy[head!] = setIn(src[head!], rest, value);
  return copy as T;
}

export const useDraft = create<DraftState>()((set) => ({
  draft: null,
  clean: null,
  from: '',
  ran: null,
  issues: null,
  lastTraceId: null,
  seen: null,
  followed: false,
  texts: {},
  setDraft: (d, from, followed = false) => set({ draft: d, clean: d, from, issues: null, followed, texts: {} }),
  update: (path, value) =>
    set((s) => {
      if (s.draft === null) return {};
      const draft = setIn(s.draft, path, value);
      return { draft, texts: textsAfter(s.texts, s.draft, draft, textKey(path)) };
    }),
  setIssues: (issues) => set({ issues }),
  markRun: (traceId) => set((s) => ({ clean: s.draft, ran: s.draft, lastTraceId: traceId, seen: traceId, from: `trace:${traceId}` })),
  keepText: (path, text) => set((s) => (s.texts[path] === text ? {} : { texts: { ...s.texts, [path]: text } })),
}));

/** Whether the user has changed the draft since it was loaded or last run. */
export const isDirty = (s: Pick<DraftState, 'draft' | 'clean'>): boolean => s.draft !== null && s.draft !== s.clean;

/**
 * Whether the form holds a scenario the lab has nowhere else: changed, read
 * from a file, or run here (before a reload, too). Opening another scenario
 * over it asks first; one loaded unchanged from a built-in or the lab's
 * trace can be loaded again.
 */
export const isOwn = (s: Pick<DraftState, 'draft' | 'clean' | 'from' | 'lastTraceId'>): boolean =>
  isDirty(s) || s.from.startsWith('file:') || s.from === TRACE_BEFORE_RELOAD || (s.lastTraceId !== null && s.from === `trace:${s.lastTraceId}`);

/** The next free one-letter client name: A, B, … Z, then A1, B1, … */
export function nextClientName(taken: readonly string[]): string {
  const used = new Set(taken);
  for (let i = 0; ; i++) {
    const name = String.fromCharCode(65 + (i % 26)) + (i >= 26 ? String(Math.floor(i / 26)) : '');
    if (!used.has(name)) return name;
  }
}

/**
 * A new client like the last one (same settings, so a contention scenario
 * is two clicks away), with its own name and starting at 0.
 */
export function newClient(s: Scenario): ClientSpec {
  const last = s.clients[s.clients.length - 1]!;
  return { ...structuredClone(last), name: nextClientName(s.clients.map((c) => c.name)), startMs: 0 };
}
