import { useCallback, useEffect } from 'react';
import { LessonsPage } from '../lessons/LessonsPage.js';
import { useLessonRoute } from '../lessons/route.js';
import { usePageTop } from '../state/page-top.js';
import { usePlayback } from '../state/playback.js';
import { remember } from '../state/remembered.js';
import { loadTraceFile, whenTraceIsScenario } from '../state/session.js';
import { useShortcuts } from '../state/shortcuts.js';
import { useUi, type View } from '../state/ui.js';
import { Patterns } from '../timeline/Patterns.js';
import { CompareView } from '../views/CompareView.js';
import { LabView } from '../views/LabView.js';
import { importScenarioFile, SandboxView } from '../views/SandboxView.js';
import { StoresView } from '../views/StoresView.js';
import { useDrop } from './DropZone.js';
import { HelpDialog } from './HelpDialog.js';
import { Icon } from './Icon.js';
import { NoticeBar } from './NoticeBar.js';
import { onDemand } from './OnDemand.js';

// The lesson view loads only when a lesson is opened.
const LessonView = onDemand(() => import('../lessons/LessonView.js'), 'Loading the lesson…');

// The Odds view brings the sweep machinery; it loads when first opened, so the first paint does not wait for it.
const OddsView = onDemand(() => import('../views/OddsView.js'), 'Loading…');

const TABS: readonly { view: View; label: string }[] = [
  { view: 'lessons', label: 'Lessons' },
  { view: 'lab', label: 'Lab' },
  { view: 'sandbox', label: 'Sandbox' },
  { view: 'compare', label: 'Compare' },
  { view: 'stores', label: 'Stores' },
  { view: 'odds', label: 'Odds' },
];

// A scenario opened where a trace was expected is offered to the Sandbox.
whenTraceIsScenario((f) => {
  useUi.getState().set({ view: 'sandbox' });
  void importScenarioFile(f);
});

/** A trace declares its schema near the top; anything else dropped is taken for a scenario. */
function looksLikeTrace(head: string): boolean {
  return /"schema"\s*:\s*"locklab\.trace\//.test(head) || /"events"\s*:\s*\[/.test(head);
}

export function App() {
  const view = useUi((s) => s.view);
  const theme = useUi((s) => s.theme);
  const busy = useUi((s) => s.busy);
  const set = useUi((s) => s.set);
  useShortcuts();
  usePlayback();
  usePageTop();

  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    remember('theme', theme);
  }, [theme]);

  const codeOpen = useUi((s) => s.codeOpen);
  useEffect(() => {
    remember('code-open', String(codeOpen));
  }, [codeOpen]);

  const onDrop = useCallback(async (f: File) => {
    // Only the head is read here, to tell a trace from a scenario; the worker reads the whole file.
    let head: string;
    try {
      head = await f.slice(0, 4096).text();
    } catch (err) {
      useUi.getState().set({
        notice: { title: `Could not read ${f.name}`, source: f.name, issues: [{ path: '', message: String((err as Error).message ?? err) }], tone: 'error' },
      });
      return;
    }
    if (looksLikeTrace(head)) await loadTraceFile(f, useUi.getState().view === 'compare' ? 'secondary' : 'primary');
    else {
      useUi.getState().set({ view: 'sandbox' });
      await importScenarioFile(f);
    }
  }, []);
  const dragging = useDrop(onDrop);

  return (
    <div className="app">
      <svg className="defs" width="0" height="0" aria-hidden="true" focusable="false">
        <Patterns />
      </svg>
      <a className="skip-link" href="#main" onClick={(ev) => (ev.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header className="top">
        {/* Every page has its own h1 naming it (the lesson, "Lab: pause-past-expiry"); the lab's name is not a heading. */}
        <p className="brand">
          <Icon name="lock" size={20} /> Locklab
        </p>
        <nav aria-label="Views">
          <ul className="tabs">
            {TABS.map((t, i) => (
              <li key={t.view}>
                <button
                  type="button"
                  className={view === t.view || (t.view === 'lessons' && view === 'lesson') ? 'tab active' : 'tab'}
                  aria-current={view === t.view || (t.view === 'lessons' && view === 'lesson') ? 'page' : undefined}
                  onClick={() => (t.view === 'lessons' ? useLessonRoute.getState().go(null) : set({ view: t.view }))}
                  title={t.view === 'lessons' ? t.label : `${t.label} (${i})`}
                >
                  {t.label}
                </button>
              </li>
            ))}
          </ul>
        </nav>
        <div className="top-actions">
          <span className="status" role="status" aria-live="polite">
            {busy ?? ''}
          </span>
          <button type="button" onClick={() => set({ theme: theme === 'dark' ? 'light' : 'dark' })} title="Switch theme (t)">
            {theme === 'dark' ? 'Light theme' : 'Dark theme'}
          </button>
          <button type="button" onClick={() => set({ helpOpen: true })} title="Keyboard shortcuts and legend (?)">
            Help (?)
          </button>
        </div>
      </header>
      <NoticeBar />
      <main id="main" tabIndex={-1} data-view={view}>
        {view === 'lessons' && <LessonsPage />}
        {view === 'lesson' && <LessonView />}
        {view === 'lab' && <LabView />}
        {view === 'sandbox' && <SandboxView />}
        {view === 'compare' && <CompareView />}
        {view === 'stores' && <StoresView />}
        {view === 'odds' && <OddsView />}
      </main>
      <footer className="foot muted small">Drop a trace or scenario JSON file anywhere on the page to open it. Press ? for keys.</footer>
      {dragging && (
        <div className="drop-overlay" aria-hidden="true">
          Drop a trace or scenario file
        </div>
      )}
      <HelpDialog />
    </div>
  );
}
