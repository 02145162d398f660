import { create } from 'zustand';
import { useUi } from '../state/ui.js';
import { lessonSummary, LESSONS, loadLesson } from './catalog.js';
import { useProgress } from './progress.js';

/*
 * Where in the course the learner is: `#/lessons` (the list) or
 * `#/lesson/<NN-id>?at=<anchor>`, where the anchor names a step
 * (`step-…`), a stop (`stop-<story>-<stop>`), a question (`q-<id>`) or a
 * challenge (`challenge-<id>`). Every one of them can be linked to.
 */

export interface LessonRoute {
  lesson: string | null;
  anchor: string | null;
}

export const useLessonRoute = create<LessonRoute & { go(lesson: string | null, anchor?: string | null): void }>()((set) => ({
  lesson: null,
  anchor: null,
  go: (lesson, anchor = null) => {
    // Start fetching the lesson's text while the lesson view's own code loads.
    if (lesson !== null) {
      void loadLesson(lesson).catch(() => undefined);
      void import('./LessonView.js');
    }
    set({ lesson, anchor });
    useUi.getState().set({ view: lesson === null ? 'lessons' : 'lesson', playing: false });
    if (lesson !== null) useProgress.getState().place({ lesson, anchor });
  },
}));

export function isLessonHash(hash: string): boolean {
  return /^#\/lessons?(?:[/?]|$)/.test(hash);
}

/** The address of the lessons page or of a lesson and its anchor. */
export function lessonHash(route: LessonRoute): string {
  if (route.lesson === null) return '#/lessons';
  const folder = lessonSummary(route.lesson)?.folder ?? route.lesson;
  return `#/lesson/${folder}${route.anchor === null ? '' : `?at=${encodeURIComponent(route.anchor)}`}`;
}

/** Opens a lessons address; an unknown lesson opens the list with a notice naming it. */
export function openLessonHash(hash: string): void {
  const m = /^#\/lesson\/([^?]+)(?:\?(.*))?$/.exec(hash);
  if (m === null) {
    useLessonRoute.getState().go(null);
    return;
  }
  const id = decodeURIComponent(m[1]!);
  const summary = lessonSummary(id);
  if (summary === undefined) {
    useLessonRoute.getState().go(null);
    useUi.getState().set({
      notice: {
        title: 'This link names a lesson the lab does not have, so it opened the list of lessons',
        source: 'link',
        issues: [{ path: 'lesson', message: `no lesson ${JSON.stringify(id.slice(0, 60))}; the lessons are ${LESSONS.map((l) => l.folder).join(', ')}` }],
        tone: 'error',
      },
    });
    return;
  }
  const at = new URLSearchParams(m[2] ?? '').get('at');
  useLessonRoute.getState().go(summary.id, at);
}
