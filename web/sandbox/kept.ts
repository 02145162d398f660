import type { Scenario } from '../../sim/scenario/types.js';
import { forget, isRecord, readVersioned, recall, remember } from '../state/remembered.js';
import { useUi } from '../state/ui.js';
import { isDirty, isOwn, SEEN_BEFORE_RELOAD, TRACE_BEFORE_RELOAD, useDraft, type DraftState } from './draft.js';

/*
 * The Sandbox's scenario outlives a reload of its tab: the one the user
 * imported, picked, edited or ran, with what they typed in its JSON boxes.
 * It is kept in the tab's session storage, so a reload (or a browser that
 * restores its tabs) brings it back, while another tab, where the user may
 * be doing something else, opens without it (docs/decisions/0022). A form
 * that only follows the lab's trace is not kept: the address brings that
 * back. What cannot be read is discarded with a notice, and the Sandbox
 * opens as if nothing had been kept.
 */

/** Kept as `locklab.sandbox-draft` in the tab's session storage. */
export const KEPT_NAME = 'sandbox-draft';
const VERSION = 1;

/** How long after the last change the scenario is written: a reload or a closed tab writes it at once. */
export const KEEP_AFTER_MS = 300;

/** What the tab keeps of the Sandbox's state. */
export interface KeptDraft {
  draft: Scenario;
  /** Where the draft came from (DraftState.from); a trace's id goes with the page, so a trace is TRACE_BEFORE_RELOAD. */
  from: string;
  /** Changed since it was loaded or run. */
  dirty: boolean;
  texts: Record<string, string>;
}

/** What the tab keeps of the state, or null when a reload opens the form well without it. */
export function keptOf(s: Pick<DraftState, 'draft' | 'clean' | 'from' | 'lastTraceId' | 'followed' | 'texts'>): KeptDraft | null {
  if (s.draft === null || (s.followed && !isOwn(s))) return null;
  return { draft: s.draft, from: s.from.startsWith('trace:') ? TRACE_BEFORE_RELOAD : s.from, dirty: isDirty(s), texts: { ...s.texts } };
}

export const keptText = (k: KeptDraft): string => JSON.stringify({ version: VERSION, ...k });

const isNamed = (v: unknown): v is Record<string, unknown> => isRecord(v) && typeof v.name === 'string';
const isDrawn = (v: unknown): boolean => isRecord(v) && typeof v.distribution === 'string';

/** What the form would trip over in a kept scenario (an object it reads into, a list it maps), or null. */
function scenarioProblem(d: unknown): string | null {
  if (!isRecord(d)) return 'its scenario is not an object';
  if (typeof d.name !== 'string' || typeof d.summary !== 'string') return 'its scenario has no name or summary';
  for (const part of ['budget', 'store', 'resource', 'network'] as const) if (!isRecord(d[part])) return `its scenario has no ${part}`;
  if (typeof (d.store as Record<string, unknown>).kind !== 'string') return 'its store has no kind';
  if (!Array.isArray(d.machines) || d.machines.length === 0 || !d.machines.every(isNamed)) return 'its machines are malformed';
  if (!Array.isArray(d.faults) || !d.faults.every((f) => isRecord(f) && typeof f.kind === 'string')) return 'its faults are malformed';
  if (!Array.isArray(d.clients) || d.clients.length === 0) return 'it has no clients';
  const clientOk = (c: unknown): boolean =>
    isNamed(c) &&
    isRecord(c.acquire) &&
    isRecord(c.release) &&
    (c.steps === null || Array.isArray(c.steps)) &&
    (c.workTime === undefined || isDrawn(c.workTime)) &&
    (c.pauseAfterAcquire === undefined || (isRecord(c.pauseAfterAcquire) && isDrawn(c.pauseAfterAcquire.duration)));
  if (!d.clients.every(clientOk)) return 'its clients are malformed';
  return null;
}

/** Reads what a tab kept; says why it cannot, so the caller can. */
export function parseKept(text: string): { ok: true; kept: KeptDraft } | { ok: false; why: string } {
  const read = readVersioned(text, VERSION, 'a Sandbox scenario');
  if (!read.ok) return read;
  const data = read.data;
  const { draft, from, dirty, texts } = data;
  if (typeof from !== 'string' || typeof dirty !== 'boolean') return { ok: false, why: 'it does not say where its scenario came from' };
  if (!isRecord(texts) || !Object.values(texts).every((t) => typeof t === 'string')) return { ok: false, why: 'its typed JSON is malformed' };
  const problem = scenarioProblem(draft);
  if (problem !== null) return { ok: false, why: problem };
  return { ok: true, kept: { draft: draft as unknown as Scenario, from, dirty, texts: texts as Record<string, string> } };
}

/**
 * Puts back the scenario the tab kept, once, as the page starts: the form
 * as it was, changed or not, and the trace the address carries counted as
 * seen, so it does not replace the form. One that cannot be read is removed.
 */
export function restoreKeptDraft(): void {
  const text = recall(KEPT_NAME, 'tab');
  if (text === null) return;
  const r = parseKept(text);
  if (!r.ok) {
    forget(KEPT_NAME, 'tab');
    useUi.getState().set({
      notice: {
        title: 'The Sandbox’s scenario kept for this tab could not be read, so the Sandbox opens without it',
        source: `locklab.${KEPT_NAME}`,
        issues: [{ path: '', message: `was discarded because ${r.why}` }],
        tone: 'info',
      },
    });
    return;
  }
  const { draft, from, dirty, texts } = r.kept;
  useDraft.setState({ draft, clean: dirty ? null : draft, from, followed: false, texts, seen: SEEN_BEFORE_RELOAD, issues: null });
}

/**
 * Keeps the Sandbox's state in the tab as it changes: at most once every
 * `afterMs` while it changes, so typing in a large scenario does not
 * serialise it at every keystroke, and at once when the page goes away (a
 * reload, the tab closed or hidden), so a reload right after a keystroke
 * keeps it. Returns a function that stops keeping it.
 */
export function keepDraftInTab(afterMs = KEEP_AFTER_MS): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let written: KeptDraft | null | undefined;
  const write = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    const kept = keptOf(useDraft.getState());
    const same = written !== undefined && (kept === null ? written === null : written !== null && sameKept(kept, written));
    if (same) return;
    written = kept;
    // A full or disabled storage keeps nothing: the form still lasts until the tab reloads.
    if (kept === null) forget(KEPT_NAME, 'tab');
    else remember(KEPT_NAME, keptText(kept), 'tab');
  };
  const unsubscribe = useDraft.subscribe((now, before) => {
    if (now.draft === before.draft && now.from === before.from && now.clean === before.clean && now.texts === before.texts && now.followed === before.followed)
      return;
    if (timer === null) timer = setTimeout(write, afterMs);
  });
  const flush = () => {
    if (timer !== null) write();
  };
  const hidden = () => {
    if (document.visibilityState === 'hidden') flush();
  };
  addEventListener('pagehide', flush);
  document.addEventListener('visibilitychange', hidden);
  return () => {
    flush();
    unsubscribe();
    removeEventListener('pagehide', flush);
    document.removeEventListener('visibilitychange', hidden);
  };
}

/** Two kept states hold the same objects: the draft is never changed in place, so an edit makes a new one. */
const sameKept = (a: KeptDraft, b: KeptDraft): boolean =>
  a.draft === b.draft &&
  a.from === b.from &&
  a.dirty === b.dirty &&
  Object.keys(a.texts).length === Object.keys(b.texts).length &&
  Object.entries(a.texts).every(([k, t]) => b.texts[k] === t);
