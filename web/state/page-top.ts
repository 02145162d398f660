import { useLayoutEffect } from 'react';
import { useLessonRoute } from '../lessons/route.js';
import { pageDrawn, pageOf } from './history-places.js';
import { useUi } from './ui.js';

/** What the learner does to scroll by themselves: a page still following a place down stops following. */
const INPUT = ['wheel', 'touchstart', 'keydown', 'mousedown'] as const;
/** How long a page coming in (a lesson's text loads after its view) is followed down to its place. */
const FOLLOW_MS = 5000;

let stopFollowing: (() => void) | null = null;

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
}
