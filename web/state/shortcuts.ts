import { useEffect } from 'react';
import { useUi, type View } from './ui.js';
import { panBy, zoomBy } from './zoom.js';

/** One keyboard shortcut, as the help overlay lists it. */
export interface Shortcut {
  readonly keys: readonly string[];
  readonly does: string;
}

/** Extra verbs a view offers by key (fencing toggle, fork), registered while that view is shown. */
export const viewKeys: { fencing: (() => void) | null; fork: (() => void) | null } = { fencing: null, fork: null };

export const SHORTCUTS: readonly Shortcut[] = [
  { keys: ['Space', 'k'], does: 'Play or pause (playback slows near each finding and holds on it)' },
  { keys: ['→', 'l'], does: 'Step one event forward' },
  { keys: ['←', 'j'], does: 'Step one event back' },
  { keys: ['Shift+→', 'Shift+←'], does: 'Step ten events' },
  { keys: ['Home', 'End'], does: 'First or last event' },
  { keys: ['n', 'Shift+N'], does: 'Jump to the next or previous finding' },
  { keys: [']', '['], does: 'Faster or slower' },
  { keys: ['+', '−'], does: 'Zoom in or out around the playhead' },
  { keys: ['0'], does: 'Show the whole trace' },
  { keys: ['.', ','], does: 'Pan later or earlier' },
  { keys: ['a'], does: 'Show or hide request/response arrows' },
  { keys: ['f'], does: 'Turn fencing on or off and run again (Lab)' },
  { keys: ['x'], does: 'Fork from here (Lab)' },
  { keys: ['1', '2', '3', '4', '5'], does: 'Lab, Sandbox, Compare, Stores, Odds' },
  { keys: ['t'], does: 'Light or dark theme' },
  { keys: ['?'], does: 'This help' },
  { keys: ['Esc'], does: 'Close a dialog' },
];

const VIEWS: readonly View[] = ['lab', 'sandbox', 'compare', 'stores', 'odds'];

function typingIn(ev: KeyboardEvent): boolean {
  const el = ev.target as HTMLElement | null;
  if (el === null || typeof el.closest !== 'function') return false;
  // A closed choice takes ↑ and ↓; ← and → still step, as the side panel's hint promises.
  if (el.closest('select') !== null) return ev.key !== 'ArrowLeft' && ev.key !== 'ArrowRight';
  // Checkboxes and buttons keep the shortcuts; fields that take arrows or letters do not.
  return el.closest('input:not([type=checkbox]):not([type=radio]):not([type=file]), textarea, [contenteditable="true"]') !== null;
}

/** An open dialog owns the keyboard: nothing behind it may change while it is shown. */
const dialogOpen = (): boolean => document.querySelector('dialog[open]') !== null;

/** Installs the shortcuts on the document. Keys typed into form fields and dialogs are left alone. */
export function useShortcuts(): void {
  useEffect(() => {
    const onKey = (ev: KeyboardEvent) => {
      if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
      const ui = useUi.getState();
      // ? opens the help anywhere but in a text field, and closes it again; it does not stack on another dialog.
      if (ev.key === '?' && !typingIn(ev) && (ui.helpOpen || !dialogOpen())) {
        ui.set({ helpOpen: !ui.helpOpen });
        ev.preventDefault();
        return;
      }
      if (dialogOpen() || typingIn(ev)) return;
      // Space and Enter on a focused control press or tick it, as everywhere else.
      if ((ev.key === ' ' || ev.key === 'Enter') && (ev.target as HTMLElement | null)?.closest?.('button, a, summary, input, label') != null) return;
      const inTimeline = ui.view === 'lab' || ui.view === 'compare';
      let handled = true;
      switch (ev.key) {
        case ' ':
        case 'k':
          if (inTimeline) ui.togglePlay();
          break;
        case 'ArrowRight':
        case 'l':
          if (inTimeline) ui.stepBy(ev.shiftKey ? 10 : 1);
          break;
        case 'ArrowLeft':
        case 'j':
          if (inTimeline) ui.stepBy(ev.shiftKey ? -10 : -1);
          break;
        case 'n':
          if (inTimeline) ui.jumpToFinding(1);
          break;
        case 'N':
          if (inTimeline) ui.jumpToFinding(-1);
          break;
        case 'Home':
          ui.seekSeq(-1);
          break;
        case 'End':
          ui.seekSeq(Number.MAX_SAFE_INTEGER);
          break;
        case ']':
          ui.changeSpeed(1);
          break;
        case '[':
          ui.changeSpeed(-1);
          break;
        case '+':
        case '=':
          zoomBy(0.5);
          break;
        case '-':
        case '_':
          zoomBy(2);
          break;
        case '0':
          ui.set({ domain: null });
          break;
        case '.':
          panBy(0.25);
          break;
        case ',':
          panBy(-0.25);
          break;
        case 'a':
          ui.set({ arrows: !ui.arrows });
          break;
        case 'f':
          viewKeys.fencing?.();
          break;
        case 'x':
          viewKeys.fork?.();
          break;
        case 't':
          ui.set({ theme: ui.theme === 'dark' ? 'light' : 'dark' });
          break;
        case '1':
        case '2':
        case '3':
        case '4':
        case '5':
          ui.set({ view: VIEWS[Number(ev.key) - 1]! });
          break;
        default:
          handled = false;
      }
      if (handled) ev.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}
