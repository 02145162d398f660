// First of all: the simulation's worker starts loading on its own thread while the rest of the page does.
import './worker/start.js';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './components/App.js';
import { startUrlSync } from './state/url-sync.js';
import { useUi, type Theme } from './state/ui.js';
import { exposeTestHooks } from './test-hooks.js';
import './styles.css';

function initialTheme(): Theme {
  try {
    const saved = localStorage.getItem('locklab.theme');
    if (saved === 'light' || saved === 'dark') return saved;
  } catch {
    // Storage may be disabled; fall back to the system preference.
  }
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** Whether the learner left the clients' code open on an earlier visit. */
function initialCodeOpen(): boolean {
  try {
    return localStorage.getItem('locklab.code-open') === 'true';
  } catch {
    // Storage may be disabled: the code starts folded.
    return false;
  }
}

useUi.getState().set({ theme: initialTheme(), codeOpen: initialCodeOpen() });
exposeTestHooks();
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
void startUrlSync();
