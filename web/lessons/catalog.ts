import type { LabLesson, LessonSummary } from './types.js';

/*
 * Every folder under lessons/ with a lesson.md, found at build time. The
 * summaries are small and come with the page; a lesson's text, data and
 * scenarios load only when it is opened.
 */
const summaries = import.meta.glob<LessonSummary>('../../lessons/*/lesson.md', { query: '?lesson-meta', import: 'default', eager: true });
const loaders = import.meta.glob<LabLesson>('../../lessons/*/lesson.md', { query: '?lesson', import: 'default' });

const byFolder = new Map(Object.entries(loaders).map(([path, load]) => [path.split('/').at(-2)!, load]));

export const LESSONS: readonly LessonSummary[] = Object.values(summaries).sort((a, b) => a.number - b.number);

export function lessonSummary(id: string): LessonSummary | undefined {
  return LESSONS.find((l) => l.id === id || l.folder === id);
}

const cache = new Map<string, Promise<LabLesson>>();

/** Loads a lesson's module (once). */
export function loadLesson(id: string): Promise<LabLesson> {
  const s = lessonSummary(id);
  const load = s === undefined ? undefined : byFolder.get(s.folder);
  if (s === undefined || load === undefined) return Promise.reject(new Error(`no lesson ${id}`));
  let p = cache.get(s.folder);
  if (p === undefined) {
    p = load();
    cache.set(s.folder, p);
  }
  return p;
}
