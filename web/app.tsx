// The page itself; main.tsx, the entry, loads it once the simulation's worker has started.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './components/App.js';
import { keepDraftInTab, restoreKeptDraft } from './sandbox/kept.js';
import { recall } from './state/remembered.js';
import { startUrlSync } from './state/url-sync.js';
import { useUi, type Theme } from './state/ui.js';
import { exposeTestHooks } from './test-hooks.js';

/** The theme chosen on an earlier visit, else the system's preference. */
function initialTheme(): Theme {
  const saved = recall('theme');
  if (saved === 'light' || saved === 'dark') return saved;
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

// The clients' code starts open when the learner left it open on an earlier visit.
useUi.getState().set({ theme: initialTheme(), codeOpen: recall('code-open') === 'true' });
// The Sandbox's scenario comes back after a reload of this tab, and is kept as it changes.
restoreKeptDraft();
keepDraftInTab();
exposeTestHooks();
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
void startUrlSync();
