/*
 * The entry, kept small: it starts the simulation's worker, then loads the
 * page's code (app.tsx), a chunk of its own that index.html preloads. The
 * worker then loads and compiles on its own thread while the browser is
 * still parsing the page's code (a few hundred milliseconds on a slow
 * machine), not after, so a lesson's first story or the lab's first run is
 * ready sooner.
 */
import './worker/start.js';
import './styles.css';

import('./app.js').catch((err: unknown) => {
  const said = document.createElement('p');
  said.className = 'warn load-failed';
  said.textContent = `Locklab could not load its code (${String((err as Error).message ?? err)}). Reload the page to try again.`;
  document.getElementById('root')?.replaceChildren(said);
});

/*
 * A lesson's link (`#/lesson/<folder>`, as the lab writes them): the lesson's
 * view and text start loading now, beside the page's code, not once that
 * code has run. A module loads once, so the page finds them under way.
 */
const lessonTexts = import.meta.glob('../lessons/*/lesson.md', { query: '?lesson', import: 'default' });
const linked = /^#\/lesson\/([\w-]+)(?:\?|$)/.exec(location.hash);
const linkedText = linked === null ? undefined : lessonTexts[`../lessons/${linked[1]!}/lesson.md`];
if (linkedText !== undefined) {
  void import('./lessons/LessonView.js').catch(() => undefined);
  void linkedText().catch(() => undefined);
}
