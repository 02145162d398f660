import { useLessonRoute } from '../lessons/route.js';
import { useUi, type View } from './ui.js';

/*
 * The tab's history, a page to an entry. The lab is one long-lived document
 * that swaps views, so the browser makes no entry of its own when the
 * learner goes from the lessons to a lesson or to the lab: without these,
 * Back left Locklab altogether. Each new page gets an entry (url-sync pushes
 * it with the page's address), and Back or Forward to an entry opens its
 * page scrolled where the learner left it. Moving within a page (a lesson's
 * anchor, the lab's scenario, seed or playhead) changes the entry's address
 * and adds none.
 */

/** A page: a view, and in the lesson view one lesson. */
export function pageOf(view: View, lesson: string | null): string {
  return view === 'lesson' ? `lesson ${lesson ?? ''}` : view;
}

function currentPage(): string {
  return pageOf(useUi.getState().view, useLessonRoute.getState().lesson);
}

/** Where an entry keeps its key (history.state). */
interface EntryState {
  locklabEntry: string;
}

/** Keys unique to this load of the page: entries made by an earlier load keep theirs in history.state. */
const LOAD = Math.round(performance.timeOrigin).toString(36);
let made = 0;

/** The key of the entry that shows the page on screen; null while a new page waits for url-sync to push its entry. */
let shown: string | null = null;
/** How far down each entry's page was scrolled when the learner left it, by entry key. */
const scrolled = new Map<string, number>();
/** Where the places outlive a reload: the tab's session storage, as the entries do. */
const PLACES_KEY = 'locklab.places';
/** The most places kept across a reload: the latest. */
const PLACES_KEPT = 100;

function keepPlaces(): void {
  if (shown !== null) scrolled.set(shown, window.scrollY);
  try {
    sessionStorage.setItem(PLACES_KEY, JSON.stringify([...scrolled].slice(-PLACES_KEPT)));
  } catch {
    // Storage refused (private mode, full): a reload then opens pages at their top.
  }
}

function recallPlaces(): void {
  let kept: unknown;
  try {
    kept = JSON.parse(sessionStorage.getItem(PLACES_KEY) ?? '[]');
  } catch {
    return;
  }
  if (!Array.isArray(kept)) return;
  for (const place of kept) {
    if (Array.isArray(place) && typeof place[0] === 'string' && typeof place[1] === 'number' && place[1] >= 0) scrolled.set(place[0], place[1]);
  }
}

function entryState(value: unknown): EntryState | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const key = (value as Partial<EntryState>).locklabEntry;
  return typeof key === 'string' ? (value as EntryState) : undefined;
}

/** The current entry's key, given one if the browser made the entry (the first page, a link opened in the address bar). */
function currentKey(): string {
  const state = entryState(history.state);
  if (state !== undefined) return state.locklabEntry;
  const locklabEntry = `${LOAD}.${++made}`;
  history.replaceState({ locklabEntry }, '');
  return locklabEntry;
}

/** The page the last state change showed, and the page last drawn (null before the first). */
let statePage: string | null = null;
let drawnPage: string | null = null;

/** Notes, before the new page is drawn over it, how far down the page on screen was. */
function watchPages(): void {
  statePage = currentPage();
  const changed = () => {
    const page = currentPage();
    if (page === statePage) return;
    statePage = page;
    // The state changed, the screen not yet: this is still the page left.
    if (shown !== null) scrolled.set(shown, window.scrollY);
  };
  useUi.subscribe(changed);
  useLessonRoute.subscribe(changed);
}

/**
 * A page has been drawn, not yet painted: where to scroll it, or undefined
 * to leave it where it is. An entry the learner returns to (Back, Forward,
 * a reload) opens where they left it; a new page, whose entry url-sync is
 * about to push, at its top; the first page of a visit where the browser
 * put it.
 */
export function pageDrawn(): number | undefined {
  const page = currentPage();
  if (page === drawnPage) return undefined;
  const first = drawnPage === null;
  drawnPage = page;
  const key = currentKey();
  if (first) {
    history.scrollRestoration = 'manual';
    watchPages();
    recallPlaces();
    // The document is going away (a reload, another site): keep the places for the next load of this tab.
    addEventListener('pagehide', keepPlaces);
  } else if (key === shown) {
    // The current entry is the page just left: the new page has none yet.
    shown = null;
    return 0;
  }
  shown = key;
  return scrolled.get(key) ?? (first ? undefined : 0);
}

/**
 * Puts `hash`, the address of what is on screen, in the history: in a new
 * entry when the page on screen has none yet, else in place of the current
 * entry's address.
 */
export function writeAddress(hash: string): void {
  if (shown === null) {
    const state: EntryState = { locklabEntry: `${LOAD}.${++made}` };
    history.pushState(state, '', hash);
    shown = state.locklabEntry;
  } else if (hash !== location.hash) history.replaceState(history.state, '', hash);
}
