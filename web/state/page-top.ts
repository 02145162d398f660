import { useLayoutEffect, useRef } from 'react';
import { useLessonRoute } from '../lessons/route.js';
import { useUi } from './ui.js';

/**
 * Opens every new page at its top, as a browser does a new document: the
 * lab swaps views inside one long-lived page, so without this the lessons
 * list opened at the height the learner had scrolled to in a lesson,
 * showing lessons 4–12 and no header. A page is a view, and in the lesson
 * view one lesson: moving to an anchor within the lesson shown is no new
 * page, and the lesson view scrolls to an anchor after this has run.
 */
export function usePageTop(): void {
  const view = useUi((s) => s.view);
  const lesson = useLessonRoute((s) => s.lesson);
  const page = view === 'lesson' ? `lesson ${lesson ?? ''}` : view;
  const first = useRef(true);
  // Before the paint, so the new page is never drawn at the old height.
  useLayoutEffect(() => {
    if (first.current) {
      // The first page is where the browser put it (the top, or a place it restored on reload).
      first.current = false;
      return;
    }
    window.scrollTo(0, 0);
  }, [page]);
}
