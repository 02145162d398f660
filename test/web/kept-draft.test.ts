import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BUILTIN_SCENARIOS, normalizeScenario } from '../../sim/index.js';
import type { Scenario } from '../../sim/scenario/types.js';
import { textKey, TRACE_BEFORE_RELOAD, useDraft } from '../../web/sandbox/draft.js';
import { keepDraftInTab, KEPT_NAME, keptOf, keptText, parseKept, restoreKeptDraft } from '../../web/sandbox/kept.js';
import { useUi } from '../../web/state/ui.js';
import { MemoryStorage } from './memory-storage.js';

/* The Sandbox's scenario kept in its tab across a reload. */

let local: MemoryStorage;
let session: MemoryStorage;
/** The page's listeners: `pagehide` on the window, `visibilitychange` on the document. */
let listeners: Map<string, () => void>;
let visibility: 'visible' | 'hidden';

beforeEach(() => {
  local = new MemoryStorage();
  session = new MemoryStorage();
  listeners = new Map();
  visibility = 'visible';
  vi.stubGlobal('localStorage', local);
  vi.stubGlobal('sessionStorage', session);
  vi.stubGlobal('addEventListener', (type: string, f: () => void) => listeners.set(type, f));
  vi.stubGlobal('removeEventListener', (type: string) => listeners.delete(type));
  vi.stubGlobal('document', {
    get visibilityState() {
      return visibility;
    },
    addEventListener: (type: string, f: () => void) => listeners.set(type, f),
    removeEventListener: (type: string) => listeners.delete(type),
  });
  useDraft.setState({ draft: null, clean: null, from: '', ran: null, issues: null, lastTraceId: null, seen: null, followed: false, texts: {} });
  useUi.getState().set({ notice: null });
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const scenario = (): Scenario => normalizeScenario(BUILTIN_SCENARIOS['pause-past-expiry'], 'pause-past-expiry');

describe('keptOf', () => {
  it('keeps nothing of a form that follows the lab’s trace unchanged, since the address brings it back', () => {
    const s = scenario();
    expect(keptOf({ draft: s, clean: s, from: 'builtin:pause-past-expiry|', lastTraceId: null, followed: true, texts: {} })).toBeNull();
    expect(keptOf({ draft: null, clean: null, from: '', lastTraceId: null, followed: false, texts: {} })).toBeNull();
  });

  it('keeps a form the user chose, changed, imported or ran, a trace’s id put aside as it goes with the page', () => {
    const s = scenario();
    const changed = { ...s, seed: 8 };
    expect(keptOf({ draft: s, clean: s, from: 'builtin:pause-past-expiry|', lastTraceId: null, followed: false, texts: {} })?.dirty).toBe(false);
    expect(keptOf({ draft: changed, clean: s, from: 'builtin:pause-past-expiry|', lastTraceId: null, followed: true, texts: {} })?.dirty).toBe(true);
    expect(keptOf({ draft: s, clean: s, from: 'file:mine.json', lastTraceId: null, followed: false, texts: {} })?.from).toBe('file:mine.json');
    const ran = keptOf({ draft: s, clean: s, from: 'trace:t4', lastTraceId: 't4', followed: true, texts: {} });
    expect(ran?.from).toBe(TRACE_BEFORE_RELOAD);
  });
});

describe('parseKept', () => {
  it('reads back what was kept', () => {
    const s = scenario();
    const kept = { draft: s, from: 'file:mine.json', dirty: true, texts: { 'clients.0.steps': '[{"step": "acq' } };
    expect(parseKept(keptText(kept))).toEqual({ ok: true, kept });
  });

  it('says why it cannot read damaged JSON, another version, or a scenario the form would trip over', () => {
    const s = scenario();
    const text = (over: Record<string, unknown>) => JSON.stringify({ version: 1, draft: s, from: 'blank', dirty: false, texts: {}, ...over });
    expect(parseKept('{"version":1,"dr')).toEqual({ ok: false, why: 'it is not valid JSON' });
    expect(parseKept(text({ version: 0 }))).toEqual({ ok: false, why: 'it is not a Sandbox scenario of version 1' });
    expect(parseKept('[]')).toEqual({ ok: false, why: 'it is not a Sandbox scenario of version 1' });
    expect(parseKept(text({ from: 3 }))).toEqual({ ok: false, why: 'it does not say where its scenario came from' });
    expect(parseKept(text({ texts: { a: 1 } }))).toEqual({ ok: false, why: 'its typed JSON is malformed' });
    expect(parseKept(text({ draft: 'x' }))).toEqual({ ok: false, why: 'its scenario is not an object' });
    expect(parseKept(text({ draft: { ...s, network: undefined } }))).toEqual({ ok: false, why: 'its scenario has no network' });
    expect(parseKept(text({ draft: { ...s, clients: [] } }))).toEqual({ ok: false, why: 'it has no clients' });
    const noRelease = { ...s, clients: [{ ...s.clients[0]!, release: null }] };
    expect(parseKept(text({ draft: noRelease }))).toEqual({ ok: false, why: 'its clients are malformed' });
    expect(parseKept(text({ draft: { ...s, faults: [{ atMs: 1 }] } }))).toEqual({ ok: false, why: 'its faults are malformed' });
  });
});

describe('restoreKeptDraft', () => {
  it('puts back a kept form as it was, changed and with its typed JSON', () => {
    const s = { ...scenario(), seed: 99 };
    session.items.set(`locklab.${KEPT_NAME}`, keptText({ draft: s, from: 'file:mine.json', dirty: true, texts: { 'store.x': '{' } }));
    restoreKeptDraft();
    const d = useDraft.getState();
    expect(d.draft).toEqual(s);
    expect(d.draft !== d.clean).toBe(true);
    expect(d.from).toBe('file:mine.json');
    expect(d.texts).toEqual({ 'store.x': '{' });
    expect(useUi.getState().notice).toBeNull();
  });

  it('removes a kept form it cannot read, says so in a notice, and leaves the form empty', () => {
    session.items.set(`locklab.${KEPT_NAME}`, '{"version":1,"draft":{"na');
    restoreKeptDraft();
    expect(session.items.has(`locklab.${KEPT_NAME}`)).toBe(false);
    expect(useDraft.getState().draft).toBeNull();
    const n = useUi.getState().notice;
    expect(n?.title).toBe('The Sandbox’s scenario kept for this tab could not be read, so the Sandbox opens without it');
    expect(n?.issues).toEqual([{ path: '', message: 'was discarded because it is not valid JSON' }]);
  });

  it('does nothing, and shows nothing, where the storage is refused', () => {
    session.refuse = true;
    restoreKeptDraft();
    expect(useDraft.getState().draft).toBeNull();
    expect(useUi.getState().notice).toBeNull();
  });
});

describe('keepDraftInTab', () => {
  it('writes the form at most once a while as it changes, and at once when the page goes away', () => {
    vi.useFakeTimers();
    const setItem = vi.spyOn(session, 'setItem');
    const stop = keepDraftInTab(300);
    const s = scenario();
    useDraft.getState().setDraft(s, 'file:mine.json');
    for (let i = 0; i < 10; i++) useDraft.getState().update(['seed'], i);
    expect(setItem).not.toHaveBeenCalled();
    vi.advanceTimersByTime(300);
    expect(setItem).toHaveBeenCalledTimes(1);
    expect(parseKept(session.items.get(`locklab.${KEPT_NAME}`)!)).toMatchObject({ ok: true, kept: { draft: { seed: 9 }, dirty: true } });

    // A keystroke, then the reload: the page's going writes it.
    useDraft.getState().update(['seed'], 42);
    listeners.get('pagehide')!();
    expect(setItem).toHaveBeenCalledTimes(2);
    expect(parseKept(session.items.get(`locklab.${KEPT_NAME}`)!)).toMatchObject({ ok: true, kept: { draft: { seed: 42 } } });
    // The timer then finds nothing new to write.
    vi.advanceTimersByTime(300);
    expect(setItem).toHaveBeenCalledTimes(2);

    // Hidden (the tab switched away from, or closed on a phone): written too.
    useDraft.getState().keepText(textKey(['clients', 0, 'steps']), '[{');
    visibility = 'hidden';
    listeners.get('visibilitychange')!();
    expect(parseKept(session.items.get(`locklab.${KEPT_NAME}`)!)).toMatchObject({ ok: true, kept: { texts: { 'clients.0.steps': '[{' } } });
    stop();
    expect(listeners.size).toBe(0);
  });

  it('removes what it kept when the form goes back to following the lab’s trace', () => {
    vi.useFakeTimers();
    const stop = keepDraftInTab(300);
    useDraft.getState().setDraft(scenario(), 'file:mine.json');
    vi.advanceTimersByTime(300);
    expect(session.items.has(`locklab.${KEPT_NAME}`)).toBe(true);
    useDraft.getState().setDraft(scenario(), 'trace:t2', true);
    vi.advanceTimersByTime(300);
    expect(session.items.has(`locklab.${KEPT_NAME}`)).toBe(false);
    stop();
  });
});

describe('the typed JSON of the draft', () => {
  it('goes with the value it was typed for: an edit elsewhere keeps it, one that gives its box another value drops it', () => {
    const s = scenario();
    const twoClients = { ...s, clients: [s.clients[0]!, { ...s.clients[0]!, name: 'Z' }] };
    useDraft.getState().setDraft(twoClients, 'blank');
    useDraft.getState().keepText('clients.1.acquire.extra', '{"half');
    useDraft.getState().keepText('clients.0.acquire.extra', '[');
    useDraft.getState().update(['seed'], 5);
    expect(Object.keys(useDraft.getState().texts)).toEqual(['clients.1.acquire.extra', 'clients.0.acquire.extra']);
    // A client added after them moves neither.
    useDraft.getState().update(['clients'], [...useDraft.getState().draft!.clients, { ...s.clients[0]!, name: 'Y' }]);
    expect(Object.keys(useDraft.getState().texts)).toEqual(['clients.1.acquire.extra', 'clients.0.acquire.extra']);
    // Client 0 removed: client Z is now clients.0, and neither text is about its values.
    useDraft.getState().update(['clients'], useDraft.getState().draft!.clients.slice(1));
    expect(useDraft.getState().texts).toEqual({});
    // A value changed from elsewhere (a store switched) is not what was typed for it.
    useDraft.getState().keepText('store.x', '{');
    useDraft.getState().update(['store'], { ...s.store, x: [1] });
    expect(useDraft.getState().texts).toEqual({});
    // Its own box's edit keeps it: the text is the value as typed.
    useDraft.getState().keepText('store.x', '[1, 2]');
    useDraft.getState().update(['store', 'x'], [1, 2]);
    expect(useDraft.getState().texts).toEqual({ 'store.x': '[1, 2]' });
    // A new scenario drops every text.
    useDraft.getState().keepText('store.x', '{');
    useDraft.getState().setDraft(s, 'blank');
    expect(useDraft.getState().texts).toEqual({});
  });
});
