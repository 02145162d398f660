import { buildLink, EMPTY_LINK, MAX_LINK_CHARS, parseLink, type LinkState, type OddsLink } from '../links/permalink.js';
import { SANDBOX, useOdds, type OddsForm } from '../odds/store.js';
import { sim, WorkerInputError } from '../worker/client.js';
import type { ScenarioInput, TracePayload } from '../worker/protocol.js';
import { getTrace, registerTrace, type LoadedTrace, type Origin } from './traces.js';
import { useUi, type View } from './ui.js';

/*
 * The lab's verbs: run a scenario, load a file, open a link. They talk to
 * the worker, register the immutable trace, and point the UI store at it.
 */

export const DEFAULT_SCENARIO = 'pause-past-expiry';

function inputOf(origin: Exclude<Origin, { kind: 'file' }>): ScenarioInput {
  return origin.kind === 'builtin' ? { builtin: origin.name } : { raw: origin.raw, sourceName: 'scenario' };
}

export function labelOf(origin: Origin): string {
  if (origin.kind === 'file') return origin.fileName;
  const name = origin.kind === 'builtin' ? origin.name : String((origin.raw as { name?: unknown } | null)?.name ?? 'scenario');
  const seed = origin.seed === null ? '' : ` · seed ${origin.seed}`;
  return `${name}${seed}${origin.overrides.length > 0 ? ` · ${origin.overrides.join(' ')}` : ''}`;
}

function report(err: unknown, title: string): void {
  if (err instanceof WorkerInputError)
    useUi
      .getState()
      .set({ notice: { title, source: err.source, issues: err.issues, tone: 'error', ...(err.what === undefined ? {} : { what: err.what.words }) } });
  else useUi.getState().set({ notice: { title, source: 'lab', issues: [{ path: '', message: String((err as Error).message ?? err) }], tone: 'error' } });
}

/** Starts a run in the worker and nothing else: what it gives is shown by runOrigin. */
export function startRun(origin: Exclude<Origin, { kind: 'file' }>): Promise<TracePayload> {
  return sim().run(inputOf(origin), origin.seed, origin.overrides);
}

/**
 * Runs a scenario in the worker and registers its trace; reports bad input as
 * a notice and returns null. `begun` is the same run, if it was started
 * before it was asked for (see startRun).
 */
export async function runOrigin(
  origin: Exclude<Origin, { kind: 'file' }>,
  label = labelOf(origin),
  begun?: Promise<TracePayload>,
): Promise<LoadedTrace | null> {
  const ui = useUi.getState();
  ui.set({ busy: `Running ${label}…` });
  try {
    const t = await (begun ?? startRun(origin));
    return registerTrace({ label, origin, ...t });
  } catch (err) {
    report(err, `Could not run ${label}`);
    return null;
  } finally {
    useUi.getState().set({ busy: null });
  }
}

/**
 * Counts what was asked to become the primary trace: every run or file load
 * meant for it, and every trace shown. A run or load that finishes after a
 * later one was asked for, or another trace was shown, does not show its own.
 */
let primaryAsked = 0;

/** Shows a trace as the primary one, keeping the cursor where it was when asked to (e.g. after toggling fencing). */
export function showPrimary(t: LoadedTrace, keep: { cursor?: number; domain?: readonly [number, number] | null } = {}): void {
  primaryAsked++;
  const n = t.doc.events.length;
  const cursor = Math.min(n - 1, keep.cursor ?? -1);
  useUi.getState().set({
    primaryId: t.id,
    cursor,
    playheadUs: cursor >= 0 ? t.model.times[cursor]! : t.model.startUs,
    playing: false,
    selected: null,
    domain: keep.domain === undefined ? null : keep.domain,
  });
  performance.mark('locklab:trace-shown');
}

export async function runPrimary(origin: Exclude<Origin, { kind: 'file' }>, keepView = false): Promise<LoadedTrace | null> {
  const before = useUi.getState();
  const asked = ++primaryAsked;
  const t = await runOrigin(origin);
  // A trace asked for or shown since (the user opened a file while the lab's first run was still going) is not replaced by this one.
  if (t !== null && asked === primaryAsked) showPrimary(t, keepView ? { cursor: before.cursor, domain: before.domain } : {});
  return t;
}

/** Where a file opened as a trace goes when it turns out to be a scenario. */
let openScenarioInSandbox: ((f: File) => void) | null = null;
export function whenTraceIsScenario(open: (f: File) => void): void {
  openScenarioInSandbox = open;
}

/** Loads a trace file (from the picker or a drop) through the worker's validation. */
export async function loadTraceFile(file: File, slot: 'primary' | 'secondary'): Promise<LoadedTrace | null> {
  const ui = useUi.getState();
  ui.set({ busy: `Reading ${file.name}…` });
  const asked = slot === 'primary' ? ++primaryAsked : 0;
  // The notice this load answers (an earlier file's problem): one posted while it ran (the user already opened another file) stays.
  const noticeBefore = ui.notice;
  try {
    const p = await sim().loadTrace(file, file.name);
    const t = registerTrace({
      label: `${file.name} (${p.doc.source === 'real' ? 'real servers' : 'simulated'})`,
      origin: { kind: 'file', fileName: file.name },
      ...p,
    });
    if (slot === 'secondary') useUi.getState().set({ secondaryId: t.id, secondaryNote: `loaded from ${file.name}` });
    else if (asked === primaryAsked) showPrimary(t);
    if (useUi.getState().notice === noticeBefore) useUi.getState().set({ notice: null });
    return t;
  } catch (err) {
    if (err instanceof WorkerInputError && err.what?.kind === 'scenario' && openScenarioInSandbox !== null) {
      const open = openScenarioInSandbox;
      useUi.getState().set({
        notice: {
          title: `${file.name} is a scenario, not a trace`,
          source: file.name,
          issues: [],
          what: err.what.words,
          tone: 'info',
          actions: [{ label: 'Open it in the Sandbox', run: () => open(file) }],
        },
      });
      return null;
    }
    report(err, `Could not open ${file.name}`);
    return null;
  } finally {
    useUi.getState().set({ busy: null });
  }
}

/** Replaces (or adds) one `path=value` override, so toggling a setting twice does not pile up overrides. */
export function withOverride(overrides: readonly string[], path: string, value: string): string[] {
  return [...overrides.filter((o) => !o.startsWith(`${path}=`)), `${path}=${value}`];
}

/** The link state of what is on screen now, or a reason why it cannot be linked. */
export function currentLinkState(): LinkState | string {
  const ui = useUi.getState();
  // Lessons have addresses of their own (web/lessons/route.ts); url-sync writes those.
  if (ui.view === 'lessons' || ui.view === 'lesson') return 'A lesson is linked by its own address.';
  // The Odds view's address is its form: a built-in and what is varied, never the trace the Lab shows.
  if (ui.view === 'odds') {
    const form = useOdds.getState().form;
    if (form.scenario === SANDBOX) return { ...EMPTY_LINK, view: 'odds' };
    return { ...EMPTY_LINK, view: 'odds', scenario: { builtin: form.scenario }, odds: oddsLinkOf(form) };
  }
  const primary = getTrace(ui.primaryId);
  if (ui.view === 'stores' || ui.view === 'sandbox') {
    if (primary === null || primary.origin.kind === 'file') return { ...EMPTY_LINK, view: ui.view };
  }
  if (primary === null) return { ...EMPTY_LINK, view: ui.view };
  const o = primary.origin;
  if (o.kind === 'file') return `${primary.label} was loaded from a file; a link cannot carry a file (export it instead).`;
  const state: LinkState = {
    view: ui.view,
    scenario: o.kind === 'builtin' ? { builtin: o.name } : { raw: o.raw },
    seed: o.seed,
    overrides: [...o.overrides],
    cursor: ui.cursor,
    domain: ui.domain === null ? null : [ui.domain[0], ui.domain[1]],
    arrows: ui.arrows,
    // The code is under the Lab's stage: a link to it open says so there.
    code: ui.view === 'lab' && ui.codeOpen,
    compare: null,
    odds: null,
  };
  const second = getTrace(ui.secondaryId);
  if (ui.view === 'compare' && second !== null) {
    const b = second.origin;
    const same =
      b.kind !== 'file' &&
      (b.kind === 'builtin' ? o.kind === 'builtin' && b.name === o.name : o.kind === 'scenario' && JSON.stringify(b.raw) === JSON.stringify(o.raw));
    if (b.kind === 'file' || !same) return `The second trace (${second.label}) is not a variant of the first, so a link cannot carry it.`;
    state.compare = { overrides: [...b.overrides], seed: b.seed };
  }
  return state;
}

/** The permalink for the current view, or why there is none. */
export async function currentLink(): Promise<{ ok: true; hash: string } | { ok: false; reason: string }> {
  const state = currentLinkState();
  if (typeof state === 'string') return { ok: false, reason: state };
  const hash = await buildLink(state);
  if (hash.length > MAX_LINK_CHARS)
    return {
      ok: false,
      reason: `The link would be ${hash.length} characters, over the ${MAX_LINK_CHARS} the lab accepts; export the scenario as a file instead.`,
    };
  return { ok: true, hash };
}

/** The form as a link carries it: each field varied as `path=values`, and the runs per point when they are a whole number above 0 (a link with another would open as damaged). */
export function oddsLinkOf(form: OddsForm): OddsLink {
  const vary = [
    [form.path1, form.spec1],
    [form.path2, form.spec2],
  ].flatMap(([path, spec]) => (path !== '' && spec !== '' ? [`${path}=${spec}`] : []));
  return { vary, runs: /^[1-9]\d{0,8}$/.test(form.runs.trim()) ? Number(form.runs.trim()) : null };
}

/** The form a link's sweep fills in: its built-in, its varied fields (a second one only if given), and its runs if given. */
export function oddsFormOf(builtin: string, link: OddsLink): Partial<OddsForm> {
  const split = (v: string | undefined): [string, string] => {
    if (v === undefined) return ['', ''];
    const at = v.indexOf('=');
    return [v.slice(0, at), v.slice(at + 1)];
  };
  const [path1, spec1] = split(link.vary[0]);
  const [path2, spec2] = split(link.vary[1]);
  return {
    scenario: builtin,
    ...(link.vary.length > 0 ? { path1, spec1, path2, ...(link.vary.length > 1 ? { spec2 } : {}) } : {}),
    ...(link.runs === null ? {} : { runs: String(link.runs) }),
  };
}

/**
 * Restores the view a link describes. A link that cannot be read leaves a
 * notice saying what is wrong, and the lab opens its default lesson instead.
 */
export async function openLink(hash: string): Promise<void> {
  const result = await parseLink(hash);
  const ui = useUi.getState();
  if (!result.ok) {
    ui.set({
      view: result.view === 'compare' ? 'lab' : result.view,
      notice: { title: 'This link is damaged, so the lab opened its first lesson instead', source: 'link', issues: result.issues, tone: 'error' },
    });
    await runPrimary({ kind: 'builtin', name: DEFAULT_SCENARIO, seed: null, overrides: [] });
    return;
  }
  const s = result.state;
  const view: View = s.view;
  if (s.scenario === null) {
    ui.set({ view });
    if (getTrace(ui.primaryId) === null) await runPrimary({ kind: 'builtin', name: DEFAULT_SCENARIO, seed: null, overrides: [] });
    return;
  }
  const origin: Exclude<Origin, { kind: 'file' }> =
    'builtin' in s.scenario
      ? { kind: 'builtin', name: s.scenario.builtin, seed: s.seed, overrides: s.overrides }
      : { kind: 'scenario', raw: s.scenario.raw, seed: s.seed, overrides: s.overrides };
  const t = await runOrigin(origin);
  if (t === null) {
    const notice = useUi.getState().notice;
    useUi
      .getState()
      .set({ notice: notice === null ? null : { ...notice, title: 'This link names a scenario the lab cannot run, so it opened its first lesson instead' } });
    const fallback = await runOrigin({ kind: 'builtin', name: DEFAULT_SCENARIO, seed: null, overrides: [] });
    if (fallback !== null) showPrimary(fallback);
    useUi.getState().set({ view: 'lab' });
    return;
  }
  showPrimary(t, { cursor: s.cursor ?? -1, domain: s.domain });
  // An Odds link sweeps its built-in: chosen as the list would choose it, then the link's fields and runs, if it has them.
  if (view === 'odds' && 'builtin' in s.scenario) {
    // Loaded here, not with the page: the Odds form's choices come from the scenario checked, and the checker's validators are big.
    const { chooseScenario } = await import('../odds/source.js');
    chooseScenario(s.scenario.builtin);
    if (s.odds !== null) useOdds.getState().setForm(oddsFormOf(s.scenario.builtin, s.odds));
  }
  // A link with the code open opens it; one without leaves the learner's own choice.
  useUi.getState().set({ arrows: s.arrows, view, secondaryId: null, ...(s.code ? { codeOpen: true } : {}) });
  if (s.compare !== null) {
    const b = await runOrigin({ ...origin, overrides: s.compare.overrides, seed: s.compare.seed });
    if (b !== null) useUi.getState().set({ secondaryId: b.id, secondaryNote: labelOf(b.origin) });
  }
}
