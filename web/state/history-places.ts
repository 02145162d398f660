import { lessonHash, useLessonRoute } from '../lessons/route.js';
import { recall, remember } from './remembered.js';
import { useUi, type View } from './ui.js';

/*
 * The tab's history, a page to an entry. The lab is one long-lived document
 * that swaps views, so the browser makes no entry of its own when the
 * learner goes from the lessons to a lesson or to the lab: without these,
 * Back left Locklab altogether. Each new page the lab opens gets an entry,
 * pushed as the page changes, and Back or Forward to an entry opens its
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

/** The key of the entry that shows the page on screen (null until places start). */
let shown: string | null = null;
/** How far down each entry's page was scrolled when the learner left it, by entry key. */
const scrolled = new Map<string, number>();
/** Where the places outlive a reload: the tab's session storage, as the entries do (`locklab.places`). */
const PLACES = 'places';
/** The most places kept across a reload: the latest. */
const PLACES_KEPT = 100;

function keepPlaces(): void {
  if (shown !== null) scrolled.set(shown, window.scrollY);
  // Storage refused (private mode, full): a reload then opens pages at their top.
  remember(PLACES, JSON.stringify([...scrolled].slice(-PLACES_KEPT)), 'tab');
}

function recallPlaces(): void {
  let kept: unknown;
  try {
    kept = JSON.parse(recall(PLACES, 'tab') ?? '[]');
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

/** The page the state shows (null before places start). */
let statePage: string | null = null;
/** Where to scroll the page drawn next: set when the page changes, taken when it is drawn. */
let nextScroll: number | undefined;
/** The page last drawn: only a page that was on screen has a place to remember. */
let drawnPage: string | null = null;
/** The change of page under way in this task, if any: the steps of one change are one new page. */
let step: { pushed: boolean } | null = null;

/** A new page's address until url-sync writes its whole link: a lesson's, or its view's. */
function provisionalAddress(): string {
  const view = useUi.getState().view;
  return view === 'lessons' || view === 'lesson' ? lessonHash(useLessonRoute.getState()) : `#/${view}`;
}

/**
 * Starts keeping places, before the first address is opened: the page on
 * screen is the current entry's, and a reload opens it where it was left.
 */
export function startPlaces(): void {
  history.scrollRestoration = 'manual';
  recallPlaces();
  // The document is going away (a reload, another site): keep the places for the next load of this tab.
  addEventListener('pagehide', keepPlaces);
  shown = currentKey();
  statePage = currentPage();
  nextScroll = scrolled.get(shown);
}

/**
 * Called on every change of the lab's state, as it happens (before the new
 * page is drawn). When the page changes, the one left is remembered at its
 * scroll position. `inApp`: the lab changed the page itself (a tab, a
 * link it follows), so the page gets a new entry, pushed now with a
 * provisional address that is returned (url-sync writes the whole link
 * soon after); else the browser moved (Back, Forward, an address typed),
 * and the page is its entry's, scrolled where it was left.
 */
export function pageChanged(inApp: boolean): string | null {
  if (statePage === null) return null;
  const page = currentPage();
  if (page === statePage) return null;
  const left = statePage;
  statePage = page;
  if (step !== null) {
    // A later step of the same change (a lesson route sets the lesson, then the view): the page left was noted at the first.
    if (!step.pushed) return null;
    const address = provisionalAddress();
    history.replaceState(history.state, '', address);
    return address;
  }
  const thisStep = { pushed: false };
  step = thisStep;
  queueMicrotask(() => {
    step = null;
  });
  // The state changed, the screen not yet: this is still the page left, if it was ever drawn (not the state before the first address opened).
  if (shown !== null && drawnPage === left) scrolled.set(shown, window.scrollY);
  const key = currentKey();
  if (inApp && key === shown) {
    const state: EntryState = { locklabEntry: `${LOAD}.${++made}` };
    const address = provisionalAddress();
    history.pushState(state, '', address);
    shown = state.locklabEntry;
    thisStep.pushed = true;
    nextScroll = 0;
    return address;
  }
  shown = key;
  nextScroll = scrolled.get(key) ?? 0;
  return null;
}

/**
 * A page has been drawn, not yet painted: where to scroll it, or undefined
 * to leave it where it is (the first page of a visit, where the browser put
 * it). A new page opens at its top; an entry the learner returns to (Back,
 * Forward, a reload) where they left it.
 */
export function pageDrawn(): number | undefined {
  drawnPage = currentPage();
  const y = nextScroll;
  nextScroll = undefined;
  return y;
}

/** Puts `hash`, the address of what is on screen, in place of the current entry's. */
export function writeAddress(hash: string): void {
  if (hash !== location.hash) history.replaceState(history.state, '', hash);
}
