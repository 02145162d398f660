import { useEffect, useLayoutEffect, useRef } from 'react';
import { useLessonRoute } from '../lessons/route.js';
import { pageDrawn, pageOf } from './history-places.js';
import { useUi } from './ui.js';

/** What the learner does to scroll by themselves: a page still following a place down stops following. */
const INPUT = ['wheel', 'touchstart', 'keydown', 'mousedown'] as const;
/** How long a page coming in (a lesson's text loads after its view) is followed down to its place. */
const FOLLOW_MS = 5000;

let stopFollowing: (() => void) | null = null;

/** Whether the learner has gone from one page to another since the lab opened (the first page drawn is not a move). */
let moved = false;

/**
 * Gives the focus to a page's heading (or `main`) when the focus was lost
 * on the way there: the link or button that opened the page was on the page
 * it left, so the focus fell to the body, a screen reader said nothing of
 * the new page, and Tab started again from the top. Focus the learner put
 * somewhere (a view's tab, a field) stays where it is, and the first page
 * of a visit keeps the browser's own start.
 */
export function landFocus(el: HTMLElement | null): void {
  if (!moved || el === null) return;
  const at = document.activeElement;
  if (at === null || at === document.body || at.id === 'main') el.focus({ preventScroll: true });
}

/**
 * Scrolls to `y`, and if the page is not yet tall enough for it, on every
 * frame until it is, the learner scrolls, or FOLLOW_MS pass.
 */
function scrollToPlace(y: number): void {
  stopFollowing?.();
  window.scrollTo(0, y);
  if (window.scrollY >= y - 1) return;
  const started = performance.now();
  let frame = 0;
  const stop = () => {
    cancelAnimationFrame(frame);
    for (const type of INPUT) removeEventListener(type, stop);
    stopFollowing = null;
  };
  const follow = () => {
    window.scrollTo(0, y);
    if (window.scrollY >= y - 1 || performance.now() - started > FOLLOW_MS) stop();
    else frame = requestAnimationFrame(follow);
  };
  for (const type of INPUT) addEventListener(type, stop, { passive: true });
  frame = requestAnimationFrame(follow);
  stopFollowing = stop;
}

/**
 * Opens every new page at its top, as a browser does a new document, and a
 * page the learner comes back to (Back, Forward, a reload) where they left
 * it (see history-places.ts): the lab swaps views inside one long-lived
 * page, so without this the lessons list opened at the height the learner
 * had scrolled to in a lesson, showing lessons 4–12 and no header. A page
 * is a view, and in the lesson view one lesson: moving to an anchor within
 * the lesson shown is no new page, and the lesson view scrolls to an anchor
 * after this has run.
 */
export function usePageTop(): void {
  const view = useUi((s) => s.view);
  const lesson = useLessonRoute((s) => s.lesson);
  const page = pageOf(view, lesson);
  // Before the paint, so the new page is never drawn at the old height.
  useLayoutEffect(() => {
    const y = pageDrawn();
    if (y !== undefined) scrollToPlace(y);
  }, [page]);
  // After the new page's own effects; a page still loading its text (a lesson) takes the focus on to its heading when it arrives.
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    moved = true;
    landFocus(document.querySelector<HTMLElement>('main [data-page-heading]') ?? document.getElementById('main'));
  }, [page]);
}
