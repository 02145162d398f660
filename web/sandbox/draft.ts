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
  setDraft(d: Scenario, from: string): void;
  update(path: readonly (string | number)[], value: unknown): void;
  setIssues(i: DraftState['issues']): void;
  /** The draft ran as `traceId`: it is clean again and the result is its own. */
  markRun(traceId: string): void;
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
  setDraft: (d, from) => set({ draft: d, clean: d, from, issues: null }),
  update: (path, value) => set((s) => (s.draft === null ? {} : { draft: setIn(s.draft, path, value) })),
  setIssues: (issues) => set({ issues }),
  markRun: (traceId) => set((s) => ({ clean: s.draft, ran: s.draft, lastTraceId: traceId, seen: traceId, from: `trace:${traceId}` })),
}));

/** Whether the user has changed the draft since it was loaded or last run. */
export const isDirty = (s: Pick<DraftState, 'draft' | 'clean'>): boolean => s.draft !== null && s.draft !== s.clean;

/**
 * Whether the form holds a scenario the lab has nowhere else: changed, read
 * from a file, or run here. Opening another scenario over it asks first; one
 * loaded unchanged from a built-in or the lab's trace can be loaded again.
 */
export const isOwn = (s: Pick<DraftState, 'draft' | 'clean' | 'from' | 'lastTraceId'>): boolean =>
  isDirty(s) || s.from.startsWith('file:') || (s.lastTraceId !== null && s.from === `trace:${s.lastTraceId}`);

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
