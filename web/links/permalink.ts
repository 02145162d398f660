import type { InputIssue } from '../../sim/errors.js';
import { MAX_LAB_VARIED } from '../../sim/odds/lab.js';
import { LIMITS, limitText } from '../../sim/scenario/limits.js';
import { readSeed } from '../../sim/scenario/seed.js';
import { packJson, unpackJson } from './compress.js';

/** Links longer than this are refused, by us and by the servers and chat tools that would carry them. */
export const MAX_LINK_CHARS = 8000;

const VIEWS = ['lab', 'sandbox', 'compare', 'stores', 'odds'] as const;
export type LinkView = (typeof VIEWS)[number];

/** Everything a link restores. The scenario is a built-in's name or a full document. */
export interface LinkState {
  view: LinkView;
  scenario: { builtin: string } | { raw: unknown } | null;
  seed: number | null;
  overrides: string[];
  cursor: number | null;
  domain: [number, number] | null;
  arrows: boolean;
  /** The clients' code is open under the stage (the Lab). */
  code: boolean;
  /** Compare: the second trace is the same scenario with these overrides (and seed). */
  compare: { overrides: string[]; seed: number | null } | null;
  /** Odds: the sweep's form, its scenario being the link's built-in (`s`). */
  odds: OddsLink | null;
}

/**
 * The Odds view's form in a link, so a sweep can be shared before it runs (a
 * class sent the same sweep, a lesson pointing at one): each varied field as
 * `locklab sweep --vary` takes it (`path=values`), and the runs per point.
 */
export interface OddsLink {
  vary: string[];
  runs: number | null;
}

/** The Odds view varies one field, or two. */
export const MAX_VARIED = MAX_LAB_VARIED;

export const EMPTY_LINK: LinkState = {
  view: 'lab',
  scenario: null,
  seed: null,
  overrides: [],
  cursor: null,
  domain: null,
  arrows: false,
  code: false,
  compare: null,
  odds: null,
};

export type LinkResult = { ok: true; state: LinkState } | { ok: false; issues: InputIssue[]; view: LinkView };

const intOf = (text: string | null): number | null => (text !== null && /^\d{1,15}$/.test(text) ? Number(text) : null);

/** Builds the `#/view?…` fragment for a state. */
export async function buildLink(state: LinkState): Promise<string> {
  return fragmentOf(state, state.scenario !== null && 'raw' in state.scenario ? await packJson(state.scenario.raw) : null);
}

/** The fragment of a state that names a built-in (or no scenario): nothing to compress, so it is built at once, as a page draws its links. */
export function buildBuiltinLink(state: LinkState & { scenario: { builtin: string } | null }): string {
  return fragmentOf(state, null);
}

/** The fragment, given the packed scenario document when the state carries one. */
function fragmentOf(state: LinkState, packed: string | null): string {
  const p = new URLSearchParams();
  if (state.scenario !== null) {
    if ('builtin' in state.scenario) p.set('s', state.scenario.builtin);
    else if (packed !== null) p.set('sc', packed);
  }
  if (state.seed !== null) p.set('seed', String(state.seed));
  for (const o of state.overrides) p.append('set', o);
  if (state.compare !== null) {
    p.set('b', '1');
    for (const o of state.compare.overrides) p.append('bset', o);
    if (state.compare.seed !== null) p.set('bseed', String(state.compare.seed));
  }
  // Before the first event is the default view, so it needs no parameter.
  if (state.cursor !== null && state.cursor >= 0) p.set('t', String(state.cursor));
  if (state.domain !== null) p.set('z', `${Math.round(state.domain[0])}-${Math.round(state.domain[1])}`);
  if (state.arrows) p.set('arrows', '1');
  if (state.code) p.set('code', '1');
  if (state.odds !== null) {
    for (const v of state.odds.vary) p.append('vary', v);
    if (state.odds.runs !== null) p.set('runs', String(state.odds.runs));
  }
  const query = p.toString();
  return `#/${state.view}${query === '' ? '' : `?${query}`}`;
}

/**
 * Reads a `#/view?…` fragment. Anything it cannot read is reported as an
 * issue naming the parameter, so the page can say what is wrong with the
 * link and carry on with a default view.
 */
export async function parseLink(hash: string): Promise<LinkResult> {
  const body = hash.replace(/^#/, '');
  const [path = '', query = ''] = body.split(/\?(.*)/s, 2);
  const viewName = path.replace(/^\//, '') || 'lab';
  const view: LinkView = (VIEWS as readonly string[]).includes(viewName) ? (viewName as LinkView) : 'lab';
  if (hash.length > MAX_LINK_CHARS) {
    return { ok: false, view, issues: [{ path: 'link', message: `is ${hash.length} characters long; the lab reads links of at most ${MAX_LINK_CHARS}` }] };
  }
  const issues: InputIssue[] = [];
  if (!(VIEWS as readonly string[]).includes(viewName))
    issues.push({ path: 'view', message: `unknown view ${JSON.stringify(viewName.slice(0, 40))}; expected one of ${VIEWS.join(', ')}` });
  let p: URLSearchParams;
  try {
    p = new URLSearchParams(query);
  } catch {
    return { ok: false, view, issues: [{ path: 'link', message: 'cannot be read as URL parameters' }] };
  }
  const state: LinkState = { ...EMPTY_LINK, view, overrides: p.getAll('set'), arrows: p.get('arrows') === '1', code: p.get('code') === '1' };
  const s = p.get('s');
  const sc = p.get('sc');
  if (s !== null && sc !== null) issues.push({ path: 's', message: 'give either a built-in name (s) or a scenario (sc), not both' });
  else if (s !== null) state.scenario = { builtin: s };
  else if (sc !== null) {
    try {
      state.scenario = { raw: await unpackJson(sc) };
    } catch (err) {
      issues.push({ path: 'sc', message: (err as Error).message });
    }
  }
  const number = (name: string): number | null => {
    const v = p.get(name);
    if (v === null) return null;
    const n = intOf(v);
    if (n === null) issues.push({ path: name, message: `expected a whole number, got ${JSON.stringify(v.slice(0, 40))}` });
    return n;
  };
  // Seeds follow the CLI's rule, so a link never carries a seed `locklab run --seed` refuses.
  const seedOf = (name: string): number | null => {
    const v = p.get(name);
    if (v === null) return null;
    const r = readSeed(v);
    if (!r.ok) issues.push({ path: name, message: `${r.expected}, got ${JSON.stringify(v.slice(0, 40))}` });
    return r.ok ? r.seed : null;
  };
  state.seed = seedOf('seed');
  // Earlier versions wrote t=-1 for "before the first event"; such links still open.
  state.cursor = p.get('t') === '-1' ? null : number('t');
  const z = p.get('z');
  if (z !== null) {
    const m = /^(\d{1,15})-(\d{1,15})$/.exec(z);
    if (m === null || Number(m[1]) >= Number(m[2]))
      issues.push({ path: 'z', message: `expected from-to in microseconds with from < to, got ${JSON.stringify(z.slice(0, 40))}` });
    else state.domain = [Number(m[1]), Number(m[2])];
  }
  if (p.get('b') === '1') state.compare = { overrides: p.getAll('bset'), seed: seedOf('bseed') };
  // The Odds view's form; other views have none and ignore it.
  const vary = p.getAll('vary');
  if (view === 'odds' && (vary.length > 0 || p.has('runs'))) {
    if (vary.length > MAX_VARIED) issues.push({ path: 'vary', message: `is given ${vary.length} times; the Odds view varies at most ${MAX_VARIED} fields` });
    for (const v of vary)
      if (!/^[^=]+=.+$/s.test(v))
        issues.push({ path: 'vary', message: `expected a field and its values, as in clients[*].ttlMs=10000,30000, got ${JSON.stringify(v.slice(0, 60))}` });
    const runs = number('runs');
    if (runs === 0) issues.push({ path: 'runs', message: 'expected a whole number of runs per point, at least 1, got 0' });
    state.odds = { vary, runs };
  }
  for (const name of ['set', 'bset']) {
    const n = p.getAll(name).length;
    if (n > LIMITS.maxOverrides) issues.push({ path: name, message: `is given ${n} times; ${limitText('maxOverrides')}` });
  }
  if (
    (state.cursor !== null || state.compare !== null || state.odds !== null || state.overrides.length > 0) &&
    state.scenario === null &&
    !issues.some((i) => i.path === 'sc')
  )
    issues.push({ path: 's', message: 'the link names no scenario (s or sc)' });
  return issues.length > 0 ? { ok: false, view, issues } : { ok: true, state };
}
