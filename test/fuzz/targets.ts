import fc from 'fast-check';
import { check } from '../../sim/check/checker.js';
import { CheckError } from '../../sim/check/refuse.js';
import { InputError } from '../../sim/errors.js';
import { parseJson } from '../../sim/json.js';
import { keptTraceIssue } from '../../sim/scenario/limits.js';
import { runScenario } from '../../sim/run.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { applyOverrides, parseOverride } from '../../sim/scenario/set.js';
import type { Scenario } from '../../sim/scenario/types.js';
import { BUILTIN_NAMES, BUILTIN_SCENARIOS } from '../../sim/scenarios/index.js';
import { serializeTrace } from '../../sim/trace/io.js';
import { validateTrace } from '../../sim/trace/validate.js';
import type { TraceDocument } from '../../sim/trace/types.js';
import { buildLink, EMPTY_LINK, parseLink, type LinkState } from '../../web/links/permalink.js';
import { randomScenario } from '../support/random-scenario.js';
import {
  EDGE_NUMBERS,
  edgeValue,
  mutateText,
  mutateValue,
  shuffledKeys,
  textMutation,
  valueMutation,
  type TextMutation,
  type ValueMutation,
} from './mutate.js';
import { must, outcomeOf, type Outcome } from './outcome.js';
import { plantedTarget } from './planted.js';

/*
 * The fuzz targets: each draws an input a user could type or import, feeds it
 * through the path the CLI or the lab takes, and says what happened. The CI
 * test runs a few thousand of each; `npm run fuzz` runs many more, each in a
 * worker with a time bound, and counts the outcomes.
 */

export interface Target<T> {
  readonly name: string;
  readonly arbitrary: fc.Arbitrary<T>;
  run(input: T): Promise<Outcome>;
}

type Doc = Record<string, unknown>;

/**
 * Runs an accepted scenario and holds what follows to the promises made for
 * any valid input: the trace it writes is one `locklab check` reads back, the
 * checker gives the same verdict on the read-back events, and the run does
 * not depend on the order of the input's keys.
 */
function runAccepted(scenario: Scenario, seed = scenario.seed): TraceDocument {
  // As `locklab run` and the lab do: a run that keeps its trace is held to the kept-trace budget.
  const tooLong = keptTraceIssue(scenario.budget);
  if (tooLong !== undefined) throw new InputError(scenario.name, [tooLong]);
  const doc = runScenario(scenario, seed);
  const text = serializeTrace(doc);
  const back = validateTrace(parseJson(text, 'trace.json', 'trace'), 'trace.json');
  must(JSON.stringify(check(back.events)) === JSON.stringify(doc.verdict), 'the verdict of the read-back trace differs from the run');
  return doc;
}

/** Valid scenarios of every store kind: accepted, run, read back, and independent of key order. */
export const validTarget: Target<{ doc: Doc; shuffle: number }> = {
  name: 'valid scenarios',
  arbitrary: fc.record({ doc: randomScenario, shuffle: fc.nat() }),
  async run({ doc, shuffle }) {
    return outcomeOf(() => {
      const first = runAccepted(normalizeScenario(doc, 'random.json'));
      const again = runScenario(normalizeScenario(shuffledKeys(doc, shuffle), 'shuffled.json'));
      // The bytes, not only the run hash: the hash sorts keys itself, the written trace does not.
      must(serializeTrace(again) === serializeTrace(first), 'shuffling the input document’s keys changed the trace');
    });
  },
};

/** Damaged scenario documents, read as files are (text) or handed over as values (the library, the lab's forms). */
export const documentTarget: Target<{ doc: Doc; values: ValueMutation[]; texts: TextMutation[]; asText: boolean }> = {
  name: 'damaged scenario documents',
  arbitrary: fc.record({
    doc: randomScenario,
    values: fc.array(valueMutation, { minLength: 1, maxLength: 4 }),
    texts: fc.array(textMutation, { maxLength: 2 }),
    asText: fc.boolean(),
  }),
  async run({ doc, values, texts, asText }) {
    return outcomeOf(() => {
      const damaged = mutateValue(doc, values);
      const input = asText ? parseJson(mutateText(JSON.stringify(damaged), texts), 'doc.json') : damaged;
      runAccepted(normalizeScenario(input, 'doc.json'));
    });
  },
};

/** `--set path=value` overrides: real paths and near misses, with values from the edges. */
const setText = fc.record({
  pick: fc.nat(),
  path: fc.oneof(
    { weight: 4, arbitrary: fc.constant<string | null>(null) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<string | null>(
        '',
        '.',
        '[]',
        '[0]',
        'clients[99].ttlMs',
        '__proto__.x',
        'constructor.prototype.x',
        'clients.__proto__',
        'store.kind',
        'faults[-1]',
        'a'.repeat(300),
      ),
    },
  ),
  value: fc.oneof(
    fc.constantFrom(
      ...EDGE_NUMBERS.map(String),
      '1e999',
      '-1e999',
      'NaN',
      'true',
      'null',
      '[]',
      '{}',
      '"x"',
      'none',
      '{"__proto__":{"x":1}}',
      '[[[[[[[[[[[[[[[[[[[[',
    ),
    edgeValue.map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 20 }),
  ),
});

/** Every path an override can name in a scenario (`clients[0].acquire.mode`, `store.persistence`...). */
function pathsOf(value: unknown, prefix = '', out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v, i) => pathsOf(v, `${prefix}[${i}]`, out));
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      const p = prefix === '' ? k : `${prefix}.${k}`;
      out.push(p);
      pathsOf(v, p, out);
    }
  return out;
}

export const setTarget: Target<{ doc: Doc; sets: Array<{ pick: number; path: string | null; value: string }> }> = {
  name: '--set overrides',
  arbitrary: fc.record({ doc: randomScenario, sets: fc.array(setText, { minLength: 1, maxLength: 4 }) }),
  async run({ doc, sets }) {
    return outcomeOf(() => {
      const base = normalizeScenario(doc, 'random.json');
      const paths = pathsOf(base);
      const texts = sets.map((s) => `${s.path ?? paths[s.pick % paths.length]!}=${s.value}`);
      runAccepted(applyOverrides(base, texts.map(parseOverride)));
    });
  },
};

/** Damaged trace files, as `locklab check` and the lab's Open trace read them. */
export const traceTarget: Target<{ doc: Doc; values: ValueMutation[]; texts: TextMutation[]; asText: boolean }> = {
  name: 'damaged trace files',
  arbitrary: fc.record({
    doc: randomScenario,
    values: fc.array(valueMutation, { maxLength: 4 }),
    texts: fc.array(textMutation, { maxLength: 2 }),
    asText: fc.boolean(),
  }),
  async run({ doc, values, texts, asText }) {
    const trace = runScenario(normalizeScenario(doc, 'random.json'));
    return outcomeOf(() => {
      const damaged = mutateValue(JSON.parse(serializeTrace(trace)), values);
      const text = asText ? mutateText(JSON.stringify(damaged), texts) : JSON.stringify(damaged);
      const read = validateTrace(parseJson(text, 'trace.json', 'trace'), 'trace.json');
      // As `locklab check` does: a trace missing what the checker needs is refused at the event and field.
      try {
        check(read.events);
      } catch (err) {
        if (err instanceof CheckError) throw new InputError('trace.json', [{ path: `events[${err.seq}].${err.field}`, message: err.detail }]);
        throw err;
      }
    });
  },
};

/** Links: real ones built by the lab, then damaged, opened the way the lab opens them (parse, then the worker runs). */
const linkState = fc.record({
  view: fc.constantFrom('lab', 'sandbox', 'compare', 'stores', 'odds', 'nowhere'),
  scenario: fc.oneof(
    fc.constantFrom(...BUILTIN_NAMES).map((builtin) => ({ builtin })),
    randomScenario.map((raw) => ({ raw })),
    fc.constantFrom({ builtin: 'no-such-scenario' }, { builtin: '__proto__' }),
    fc.constant(null),
  ),
  seed: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.constantFrom(2 ** 32, 2 ** 53, 1e15)),
  overrides: fc.array(
    fc.oneof(
      fc.constantFrom('resource.fencing=true', 'seed=3', 'clients[0].ttlMs=500', 'x=1', '=', 'clients.A.ttlMs=1e999'),
      setText.map((s) => `${s.path ?? 'budget.maxEvents'}=${s.value}`),
    ),
    { maxLength: 3 },
  ),
  cursor: fc.option(fc.nat(), { nil: null }),
  arrows: fc.boolean(),
  code: fc.boolean(),
  odds: fc.option(
    fc.record({
      vary: fc.array(fc.oneof(fc.constantFrom('clients[*].ttlMs=10000,30000', 'faults[0].durationMs=1..9:2', '=', 'x=', '=1'), fc.string()), { maxLength: 3 }),
      runs: fc.option(fc.nat(), { nil: null }),
    }),
    { nil: null },
  ),
});

export const linkTarget: Target<{ state: Omit<LinkState, 'view' | 'domain' | 'compare'> & { view: string }; texts: TextMutation[] }> = {
  name: 'damaged links',
  arbitrary: fc.record({ state: linkState, texts: fc.array(textMutation, { maxLength: 3 }) }),
  async run({ state, texts }) {
    return outcomeOf(async () => {
      const hash = mutateText(await buildLink({ ...EMPTY_LINK, ...state, view: state.view as LinkState['view'] }), texts);
      const link = await parseLink(hash);
      if (!link.ok) {
        must(link.issues.length > 0 && link.issues.every((i) => i.path !== ''), `a refused link names no parameter: ${JSON.stringify(link.issues)}`);
        return;
      }
      const s = link.state;
      if (s.scenario === null) return;
      // What the lab's worker does with an opened link.
      const raw = 'builtin' in s.scenario ? BUILTIN_SCENARIOS[s.scenario.builtin] : s.scenario.raw;
      if (raw === undefined) return;
      const scenario = applyOverrides(normalizeScenario(raw, 'link'), s.overrides.map(parseOverride));
      runAccepted(scenario, s.seed ?? scenario.seed);
    });
  },
};

export const TARGETS = [validTarget, documentTarget, setTarget, traceTarget, linkTarget, plantedTarget] as const;
