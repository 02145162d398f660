import { currentLink, openLink } from './session.js';
import { useUi, type UiState } from './ui.js';

/*
 * Keeps the address bar equal to the permalink of what is on screen, so
 * copying the URL at any moment shares exactly this view. Writing uses
 * replaceState (scrubbing must not flood the history); a hash the user
 * types or pastes is opened as a link.
 */
let written = '';
let enabled = false;
let timer: ReturnType<typeof setTimeout> | null = null;

const WATCHED: readonly (keyof UiState)[] = ['view', 'primaryId', 'secondaryId', 'cursor', 'domain', 'arrows'];

async function write(): Promise<void> {
  timer = null;
  if (!enabled) return;
  const link = await currentLink();
  const hash = link.ok ? link.hash : `#/${useUi.getState().view}`;
  if (hash !== location.hash) {
    written = hash;
    history.replaceState(null, '', hash);
  }
}

export async function startUrlSync(): Promise<void> {
  useUi.subscribe((now, before) => {
    if (!WATCHED.some((k) => now[k] !== before[k])) return;
    if (timer !== null) clearTimeout(timer);
    // Scrubbing changes the cursor every frame; write the address once it settles.
    timer = setTimeout(() => void write(), 120);
  });
  window.addEventListener('hashchange', () => {
    if (location.hash === written) return;
    enabled = false;
    void openLink(location.hash).finally(() => {
      enabled = true;
    });
  });
  await openLink(location.hash);
  enabled = true;
  void write();
}
