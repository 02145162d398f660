import { InputError, show } from '../errors.js';

/*
 * The ranges a sweep is given on its command line (or by the lab's form):
 * seeds as `from..to`, and varied parameters as `path=a..b:step` or
 * `path=v1,v2,...`.
 */

/** Seeds from..to, both included. */
export interface SeedRange {
  readonly from: number;
  readonly to: number;
}

const MAX_SEED = 4294967295;

/** Parses `1..100000` (or one seed, `42`). */
export function parseSeedRange(text: string, source = '--seeds'): SeedRange {
  const m = /^\s*(\d+)\s*(?:\.\.\s*(\d+)\s*)?$/.exec(text);
  if (m === null) throw new InputError(source, [{ path: '', message: `expected a seed range from..to of whole numbers (e.g. 1..10000), got ${show(text)}` }]);
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  if (from > MAX_SEED || to > MAX_SEED) throw new InputError(source, [{ path: '', message: `seeds go from 0 to ${MAX_SEED}, got ${show(text)}` }]);
  if (from > to)
    throw new InputError(source, [{ path: '', message: `the seed range ${from}..${to} is in the wrong order: write the smaller seed first (${to}..${from})` }]);
  return { from, to };
}

/** One varied parameter: a scenario path and the values it takes, in order. */
export interface Vary {
  readonly path: string;
  readonly values: readonly unknown[];
}

/** The most values one --vary may take: a sweep is a grid, and a grid larger than this is a typo. */
export const MAX_VALUES = 10_000;

const NUMBER = String.raw`-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?`;
const RANGE = new RegExp(`^(${NUMBER})\\.\\.(${NUMBER})(?::(${NUMBER}))?$`);

/**
 * Parses `path=a..b:step` (numbers from a to b, b included when a step lands
 * on it; step 1 when left out) or `path=v1,v2,...` (each read as JSON when it
 * is JSON, as a string otherwise: `resource.fencing=false,true`,
 * `store.kind=redis,memcached`). Whether the path exists is checked when the
 * values are applied to the scenario.
 */
export function parseVary(text: string, source = '--vary'): Vary {
  const eq = text.indexOf('=');
  if (eq <= 0)
    throw new InputError(source, [
      { path: '', message: `expected path=from..to:step or path=v1,v2 (e.g. clients.A.ttlMs=5000..30000:5000), got ${show(text)}` },
    ]);
  const path = text.slice(0, eq).trim();
  const spec = text.slice(eq + 1).trim();
  const bad = (message: string): InputError => new InputError(source, [{ path, message }]);
  const range = RANGE.exec(spec);
  if (range !== null) {
    const from = Number(range[1]);
    const to = Number(range[2]);
    const step = range[3] === undefined ? 1 : Number(range[3]);
    if (step === 0) throw bad(`the step of ${spec} is zero: give a step above zero (e.g. ${range[1]}..${range[2]}:1)`);
    if (step < 0) throw bad(`the step of ${spec} is negative: write the range from the smaller value up, with a step above zero`);
    if (to < from) throw bad(`the range ${spec} is empty: ${range[2]} is below ${range[1]} (write from..to with from <= to)`);
    const count = Math.floor((to - from) / step + 1e-9) + 1;
    if (count > MAX_VALUES) throw bad(`the range ${spec} has ${count} values, more than ${MAX_VALUES}: use a larger step`);
    // Each value is computed from its index, never by adding steps up, and rounded to 12 digits: 0.1 steps stay 0.1, 0.2, 0.3.
    const values = Array.from({ length: count }, (_, i) => Number((from + i * step).toPrecision(12)));
    return { path, values };
  }
  if (spec === '') throw bad('has no values: give from..to:step or a list v1,v2');
  // Two dots are a range's, in no list value a sweep takes: a range that does not parse is a mistyped range, not a list of one string.
  if (spec.includes('..')) throw bad(`expected a range from..to:step of numbers (e.g. 7000..17000:1000), or a list v1,v2, got ${show(spec)}`);
  const values = spec.split(',').map((v) => {
    const raw = v.trim();
    if (raw === '') throw bad(`has an empty value in the list ${show(spec)}`);
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return raw;
    }
  });
  if (values.length > MAX_VALUES) throw bad(`has ${values.length} values, more than ${MAX_VALUES}`);
  return { path, values };
}

/** The value as one writes it after `=` on a command line. */
export function showValue(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}
