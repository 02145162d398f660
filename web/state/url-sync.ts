import { isLessonHash, lessonHash, openLessonHash, useLessonRoute } from '../lessons/route.js';
import { useProgress } from '../lessons/progress.js';
import { useOdds } from '../odds/store.js';
import { currentLink, DEFAULT_SCENARIO, openLink, runPrimary } from './session.js';
import { pageChanged, startPlaces, writeAddress } from './history-places.js';
import { getTrace } from './traces.js';
import { useUi, type UiState } from './ui.js';

/*
 * Keeps the address bar equal to the permalink of what is on screen, so
 * copying the URL at any moment shares exactly this view. A new page is
 * a new history entry; anything else replaces the entry's address
 * (scrubbing must not flood the history); a hash the user types or pastes,
 * or Back and Forward, are opened as a link.
 */
let written = '';
let enabled = false;
let timer: ReturnType<typeof setTimeout> | null = null;

const WATCHED: readonly (keyof UiState)[] = ['view', 'primaryId', 'secondaryId', 'cursor', 'domain', 'arrows', 'codeOpen'];

/**
 * Whether the address changed under the lab (a link followed, a hash typed,
 * Back) since it last wrote or opened one: its hashchange, which opens it,
 * may still be queued behind a write that would put the old place back.
 */
const movedUnder = (): boolean => location.hash !== written;

async function write(): Promise<void> {
  timer = null;
  if (!enabled || movedUnder()) return;
  const view = useUi.getState().view;
  if (view !== 'lessons' && view !== 'lesson') useProgress.getState().place({ lab: true });
  const link = view === 'lessons' || view === 'lesson' ? null : await currentLink();
  if (movedUnder()) return;
  const hash = link === null ? lessonHash(useLessonRoute.getState()) : link.ok ? link.hash : `#/${view}`;
  if (hash !== location.hash) {
    written = hash;
    // The entry's address: a new page has had its entry pushed already (pageChanged).
    writeAddress(hash);
  }
}

/**
 * Opens an address: a lesson's, a lab link, or, with no address at all, the
 * lessons page on a first visit and the place a returning learner left.
 */
async function open(hash: string): Promise<void> {
  if (isLessonHash(hash)) return openLessonHash(hash);
  const last = useProgress.getState().last;
  if (hash === '' || hash === '#') {
    if (last === null) return openLessonHash('#/lessons');
    if ('lesson' in last) return useLessonRoute.getState().go(last.lesson, last.anchor);
  }
  await openLink(hash);
}

export async function startUrlSync(): Promise<void> {
  const later = () => {
    if (timer !== null) clearTimeout(timer);
    // Scrubbing changes the cursor every frame; write the address once it settles.
    timer = setTimeout(() => void write(), 120);
  };
  // A page the lab opens itself gets its history entry at once, while the state changes; an address being opened moved the browser already.
  const newPage = () => {
    const pushed = pageChanged(enabled);
    if (pushed !== null) written = pushed;
  };
  useUi.subscribe((now, before) => {
    newPage();
    if (WATCHED.some((k) => now[k] !== before[k])) later();
    // A visit that began on the lessons page has no trace yet; the lab opens on its classic story.
    if (now.view !== before.view && (now.view === 'lab' || now.view === 'compare') && getTrace(now.primaryId) === null && now.busy === null)
      void runPrimary({ kind: 'builtin', name: DEFAULT_SCENARIO, seed: null, overrides: [] });
  });
  useLessonRoute.subscribe(() => {
    newPage();
    later();
  });
  // The Odds view's address is its form: an edit rewrites it, as scrubbing the Lab's timeline does.
  useOdds.subscribe((now, before) => {
    if (now.form !== before.form && useUi.getState().view === 'odds') later();
  });
  window.addEventListener('hashchange', () => {
    if (location.hash === written) return;
    written = location.hash;
    enabled = false;
    void open(location.hash).finally(() => {
      enabled = true;
    });
  });
  written = location.hash;
  startPlaces();
  await open(location.hash);
  enabled = true;
  void write();
}
