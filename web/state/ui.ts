import { create } from 'zustand';
import type { InputIssue } from '../../sim/errors.js';
import { countAtOrBefore, firstAtOrAfter } from '../model/search.js';
import { getTrace, type LoadedTrace } from './traces.js';

export type View = 'lab' | 'sandbox' | 'compare' | 'stores' | 'odds' | 'lessons' | 'lesson';
export type Theme = 'light' | 'dark';

/** A problem to show at the top of the page: what went wrong, where, and what the lab did instead. */
export interface Notice {
  readonly title: string;
  readonly source: string;
  readonly issues: readonly InputIssue[];
  readonly tone: 'error' | 'info';
  /** What the input appeared to be ("a Locklab trace of pause-past-expiry (seed 7, 32 events)"). */
  readonly what?: string;
  /** What the user can do instead: open the file where it belongs. */
  readonly actions?: readonly { readonly label: string; run(): void }[];
}

export const SPEEDS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 100, 1000, 10000] as const;

/**
 * The lab's UI state: which traces are on screen (by id), the cursor and
 * playhead, and view settings. Never the trace itself: traces are immutable
 * and live in state/traces.ts.
 */
export interface UiState {
  view: View;
  primaryId: string | null;
  /** The second trace of Compare and Fork. */
  secondaryId: string | null;
  /** How the second trace came about, shown above its timeline. */
  secondaryNote: string;
  /** Index of the current event of the primary trace; -1 is before the first event. */
  cursor: number;
  /** True time of the playhead in µs; during play it moves between events. */
  playheadUs: number;
  playing: boolean;
  speed: number;
  /** Seqs a story (a lesson) wants playback to stop at, besides the findings. */
  storyStops: readonly number[];
  /** The event whose details the side panel shows (a clicked mark, a finding), by seq; null when none is. */
  selected: number | null;
  /** The visible window of true time; null shows the whole trace. */
  domain: readonly [number, number] | null;
  arrows: boolean;
  /** "What the clients run, as PHP" is open under the stage: remembered in the browser, and carried by a link. */
  codeOpen: boolean;
  theme: Theme;
  helpOpen: boolean;
  notice: Notice | null;
  busy: string | null;
}

export interface UiActions {
  set(partial: Partial<UiState>): void;
  stepBy(delta: number): void;
  seekSeq(seq: number): void;
  /** Moves the playhead to an event and shows its details. */
  inspect(seq: number): void;
  /** Inspects the next (1) or previous (-1) event a finding is about, from the cursor. */
  jumpToFinding(direction: 1 | -1): void;
  seekTime(us: number): void;
  togglePlay(): void;
  changeSpeed(direction: 1 | -1): void;
}

function endOf(state: UiState): number {
  return getTrace(state.primaryId)?.model.endUs ?? 0;
}

export const useUi = create<UiState & UiActions>()((set, get) => ({
  view: 'lab',
  primaryId: null,
  secondaryId: null,
  secondaryNote: '',
  cursor: -1,
  playheadUs: 0,
  playing: false,
  speed: 2,
  selected: null,
  storyStops: [],
  domain: null,
  arrows: false,
  codeOpen: false,
  theme: 'light',
  helpOpen: false,
  notice: null,
  busy: null,

  set: (partial) => set(partial),

  stepBy: (delta) => {
    const t = getTrace(get().primaryId);
    if (t === null) return;
    const n = t.doc.events.length;
    const cursor = Math.max(-1, Math.min(n - 1, get().cursor + delta));
    set({ cursor, playheadUs: cursor >= 0 ? t.model.times[cursor]! : t.model.startUs, playing: false });
  },

  seekSeq: (seq) => {
    const t = getTrace(get().primaryId);
    if (t === null) return;
    const cursor = Math.max(-1, Math.min(t.doc.events.length - 1, Math.trunc(seq)));
    set({ cursor, playheadUs: cursor >= 0 ? t.model.times[cursor]! : t.model.startUs });
  },

  inspect: (seq) => {
    get().seekSeq(seq);
    set({ selected: get().cursor === seq ? seq : null, playing: false });
  },

  jumpToFinding: (direction) => {
    const t = getTrace(get().primaryId);
    if (t === null) return;
    const flagged = t.annotations.flagged;
    const cursor = get().cursor;
    const i = direction === 1 ? firstAtOrAfter(flagged, cursor + 1) : countAtOrBefore(flagged, cursor - 1) - 1;
    const seq = flagged[i];
    if (seq !== undefined) get().inspect(seq);
  },

  seekTime: (us) => {
    const t = getTrace(get().primaryId);
    if (t === null) return;
    const at = Math.max(0, Math.min(t.model.endUs, us));
    set({ playheadUs: at, cursor: countAtOrBefore(t.model.times, at) - 1 });
  },

  togglePlay: () => {
    const s = get();
    // Playing from the end starts again from the beginning, as media players do.
    if (!s.playing && s.playheadUs >= endOf(s)) set({ cursor: -1, playheadUs: 0 });
    set({ playing: !s.playing });
  },

  changeSpeed: (direction) => {
    const i = SPEEDS.indexOf(get().speed as (typeof SPEEDS)[number]);
    const next = SPEEDS[Math.max(0, Math.min(SPEEDS.length - 1, (i < 0 ? 4 : i) + direction))]!;
    set({ speed: next });
  },
}));

/**
 * The event a trace on screen is at. The primary trace's is the cursor;
 * another trace's is its last event at the playhead's time, and none while
 * the cursor is before the first event: the playhead then stands at the
 * start, where the other trace has events too.
 */
export function useCursorOf(trace: LoadedTrace, primary: boolean): number {
  const cursor = useUi((s) => s.cursor);
  const playheadUs = useUi((s) => s.playheadUs);
  return primary || cursor < 0 ? cursor : countAtOrBefore(trace.model.times, playheadUs) - 1;
}
