import { create } from 'zustand';
import { useUi, type Notice } from '../state/ui.js';
import { lessonSummary, LESSONS, loadLesson } from './catalog.js';
import { useProgress } from './progress.js';

/*
 * Where in the course the learner is: `#/lessons` (the list) or
 * `#/lesson/<NN-id>?at=<anchor>`, where the anchor names a step
 * (`step-…`), a stop (`stop-<story>-<stop>`), a question (`q-<id>`), a
 * challenge (`challenge-<id>`) or a sweep (`sweep-<id>`). Every one of them
 * can be linked to.
 */

export interface LessonRoute {
  lesson: string | null;
  anchor: string | null;
}

/**
 * The notice a lesson link posted (a lesson or a place the lab does not
 * have): it is about the link, so it goes once the learner moves on to
 * another place, unless it was dismissed or replaced meanwhile.
 */
let linkNotice: Notice | null = null;

/** Shows a notice about the lesson link just opened, to be cleared when the learner moves on. */
export function noticeOfLink(notice: Notice): void {
  linkNotice = notice;
  useUi.getState().set({ notice });
}

function dropLinkNotice(): void {
  if (linkNotice !== null && useUi.getState().notice === linkNotice) useUi.getState().set({ notice: null });
  linkNotice = null;
}

// Another view (the lab, the Sandbox…) is another place too.
useUi.subscribe((now, before) => {
  if (now.view !== before.view) dropLinkNotice();
});

export const useLessonRoute = create<LessonRoute & { go(lesson: string | null, anchor?: string | null): void }>()((set, get) => ({
  lesson: null,
  anchor: null,
  go: (lesson, anchor = null) => {
    // Start fetching the lesson's text while the lesson view's own code loads.
    if (lesson !== null) {
      void loadLesson(lesson).catch(() => undefined);
      void import('./LessonView.js');
    }
    // The same place again (the address written back, a link clicked twice) keeps the notice about it.
    if (lesson !== get().lesson || anchor !== get().anchor) dropLinkNotice();
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
    noticeOfLink({
      title: 'This link names a lesson the lab does not have, so it opened the list of lessons',
      source: 'link',
      issues: [{ path: 'lesson', message: `no lesson ${JSON.stringify(id.slice(0, 60))}; the lessons are ${LESSONS.map((l) => l.folder).join(', ')}` }],
      tone: 'error',
    });
    return;
  }
  const at = new URLSearchParams(m[2] ?? '').get('at');
  useLessonRoute.getState().go(summary.id, at);
}
