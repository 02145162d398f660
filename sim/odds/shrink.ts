import { InputError } from '../errors.js';
import { runJob, type JobResult } from '../run.js';
import { normalizeScenario } from '../scenario/normalize.js';
import type { ClientSpec, FaultSpec, Scenario } from '../scenario/types.js';
import { canonicalJson } from '../trace/hash.js';

/*
 * The smallest failure: from a scenario and a seed whose run is unsafe, find
 * a smaller scenario that is still unsafe at that seed. First delta debugging
 * (Zeller's ddmin) over the fault schedule and then over the clients, then
 * each duration and count brought down as far as it goes (a binary search,
 * assuming smaller stays unsafe; every candidate is run, so the result is
 * unsafe whatever the search assumed). A candidate the scenario rules refuse
 * (a fault aimed at a removed client) simply does not count as failing.
 */

export interface ShrinkOptions {
  /** Which runs count as failing; by default, unsafe ones, and with double ownership when the original had it (the same story, smaller). */
  readonly fails?: (r: JobResult) => boolean;
  /** The most runs the search may spend. */
  readonly maxRuns?: number;
  /** Said after the refusal of a run that does not fail, such as how to find one that does. */
  readonly whereToLook?: string;
}

export interface ShrinkResult {
  readonly scenario: Scenario;
  readonly seed: number;
  /** What was taken away or made smaller, one line each. */
  readonly changes: readonly string[];
  /** Runs the search took. */
  readonly runs: number;
  readonly outcome: JobResult['outcome'];
}

/** Unsafe, and with two owners at once if the original run had them: a smaller run must still tell the same story. */
function sameFailure(original: JobResult): (r: JobResult) => boolean {
  const double = original.verdict.doubleOwnership.length > 0;
  return (r) => r.outcome === 'unsafe' && (!double || r.verdict.doubleOwnership.length > 0);
}

/** Numeric fields shrunk towards their floor: durations to 0, counts to their least sensible value. */
const FAULT_FIELDS: Readonly<Record<string, number>> = { durationMs: 0, downMs: 0, extraMs: 0, writesPerSec: 0 };
const CLIENT_FIELDS: Readonly<Record<string, number>> = { workMs: 0, thinkMs: 0, writes: 1, iterations: 1 };
const ACQUIRE_FIELDS: Readonly<Record<string, number>> = { retries: 0, retryDelayMs: 0 };

/** What a run did, closely enough to tell a change that mattered from one that did not. */
function fingerprint(r: JobResult): string {
  return `${r.eventCount}|${r.stop.timeUs}|${canonicalJson(r.verdict)}`;
}

class Search {
  runs = 0;
  /** The fingerprint of each scenario that passed the test, so a change that altered nothing can be left out. */
  readonly prints = new WeakMap<Scenario, string>();
  constructor(
    private readonly seed: number,
    private readonly fails: (r: JobResult) => boolean,
    private readonly maxRuns: number,
  ) {}

  /** Whether two tested scenarios ran the same way: a smaller value that changed nothing is no simplification worth reporting. */
  same(a: Scenario, b: Scenario): boolean {
    const pa = this.prints.get(a);
    return pa !== undefined && pa === this.prints.get(b);
  }

  get exhausted(): boolean {
    return this.runs >= this.maxRuns;
  }

  /** Whether a candidate is a valid scenario that still fails at the seed. */
  test(candidate: Scenario): Scenario | undefined {
    if (this.exhausted) return undefined;
    let s: Scenario;
    try {
      s = normalizeScenario(candidate, 'shrink');
    } catch (err) {
      if (err instanceof InputError) return undefined;
      throw err;
    }
    this.runs++;
    const r = runJob(s, this.seed, { hash: false });
    if (!this.fails(r)) return undefined;
    this.prints.set(s, fingerprint(r));
    return s;
  }
}

/** ddmin: a 1-minimal sublist of `items` for which `failing` holds (it must hold for the whole list). */
function ddmin<T>(items: readonly T[], failing: (subset: readonly T[]) => boolean): T[] {
  let current = [...items];
  let n = 2;
  while (current.length >= 2) {
    const size = Math.ceil(current.length / n);
    const chunks: T[][] = [];
    for (let i = 0; i < current.length; i += size) chunks.push(current.slice(i, i + size));
    let reduced = false;
    for (const chunk of chunks) {
      if (failing(chunk)) {
        current = chunk;
        n = 2;
        reduced = true;
        break;
      }
    }
    if (!reduced) {
      for (let i = 0; i < chunks.length; i++) {
        const complement = chunks.filter((_, j) => j !== i).flat();
        if (complement.length > 0 && failing(complement)) {
          current = complement;
          n = Math.max(n - 1, 2);
          reduced = true;
          break;
        }
      }
    }
    if (!reduced) {
      if (n >= current.length) break;
      n = Math.min(current.length, n * 2);
    }
  }
  if (current.length === 1 && failing([])) return [];
  return current;
}

/** The smallest integer in [floor, value] that still fails, by bisection; `value` itself fails. */
function lowest(floor: number, value: number, failsAt: (v: number) => boolean): number {
  if (value <= floor) return value;
  if (failsAt(floor)) return floor;
  let bad = floor;
  let good = value;
  while (good - bad > 1) {
    const mid = Math.floor((bad + good) / 2);
    if (failsAt(mid)) good = mid;
    else bad = mid;
  }
  return good;
}

function describeFault(f: FaultSpec): string {
  const target = 'target' in f ? ` of ${f.target}` : 'machine' in f ? ` on ${f.machine}` : '';
  return `${f.kind}${target} at ${f.atMs} ms`;
}

/** Shrinks a scenario whose run at `seed` fails into a smaller one that still fails there. */
export function shrinkScenario(scenario: Scenario, seed: number, opts: ShrinkOptions = {}): ShrinkResult {
  const original = runJob(scenario, seed, { hash: false });
  const search = new Search(seed, opts.fails ?? sameFailure(original), opts.maxRuns ?? 5000);
  let best = original.outcome === 'unsafe' || opts.fails !== undefined ? search.test(scenario) : undefined;
  if (best === undefined) {
    const is = original.outcome === 'unsafe' ? 'is not unsafe' : `is ${original.outcome}, not unsafe`;
    const look = opts.whereToLook === undefined ? '' : `; ${opts.whereToLook}`;
    throw new InputError('--seed', [{ path: '', message: `the run of ${scenario.name} at seed ${seed} ${is}: there is no failure to shrink${look}` }]);
  }
  const changes: string[] = [];

  const faults = ddmin(best.faults, (subset) => search.test({ ...best!, faults: [...subset] }) !== undefined);
  for (const f of best.faults) if (!faults.includes(f)) changes.push(`removed the ${describeFault(f)}`);
  best = search.test({ ...best, faults }) ?? best;

  const clients = ddmin(best.clients, (subset) => search.test({ ...best!, clients: [...subset] }) !== undefined);
  for (const c of best.clients) if (!clients.includes(c)) changes.push(`removed client ${c.name}`);
  best = search.test({ ...best, clients }) ?? best;

  // Numbers next: each pass brings every field down as far as it goes; a later field can free an earlier one, so pass again until nothing moves.
  for (let pass = 0; pass < 3 && !search.exhausted; pass++) {
    let moved = false;
    best.faults.forEach((f, i) => {
      for (const [field, floor] of Object.entries(FAULT_FIELDS)) {
        const v = (f as unknown as Record<string, unknown>)[field];
        if (typeof v !== 'number' || v <= floor) continue;
        const with_ = (x: number): Scenario => ({ ...best!, faults: best!.faults.map((g, j) => (j === i ? ({ ...g, [field]: x } as FaultSpec) : g)) });
        const low = lowest(floor, Math.floor(v), (x) => search.test(with_(x)) !== undefined);
        const next = low < v ? search.test(with_(low)) : undefined;
        if (next !== undefined && !search.same(next, best!)) {
          best = next;
          moved = true;
          changes.push(`${describeFault(f)}: ${field} ${v} → ${low}`);
        }
      }
    });
    best.clients.forEach((c, i) => {
      const fields: Array<[string, number, (x: number) => ClientSpec, number | null]> = [
        ...Object.entries(CLIENT_FIELDS).map(([field, floor]): [string, number, (x: number) => ClientSpec, number | null] => [
          field,
          floor,
          (x) => ({ ...c, [field]: x }),
          (c as unknown as Record<string, unknown>)[field] as number,
        ]),
        ...Object.entries(ACQUIRE_FIELDS).map(([field, floor]): [string, number, (x: number) => ClientSpec, number | null] => [
          `acquire.${field}`,
          floor,
          (x) => ({ ...c, acquire: { ...c.acquire, [field]: x } }),
          (c.acquire as unknown as Record<string, unknown>)[field] as number,
        ]),
      ];
      for (const [field, floor, make, v] of fields) {
        if (typeof v !== 'number' || v <= floor) continue;
        const with_ = (x: number): Scenario => ({ ...best!, clients: best!.clients.map((d, j) => (j === i ? make(x) : d)) });
        const low = lowest(floor, Math.floor(v), (x) => search.test(with_(x)) !== undefined);
        const next = low < v ? search.test(with_(low)) : undefined;
        if (next !== undefined && !search.same(next, best!)) {
          best = next;
          c = best.clients[i]!;
          moved = true;
          changes.push(`client ${c.name}: ${field} ${v} → ${low}`);
        }
      }
    });
    if (!moved) break;
  }

  const final = runJob(best, seed, { hash: false });
  const summary =
    changes.length === 0
      ? `${scenario.name} at seed ${seed} could not be made smaller and stay unsafe.`
      : `The smallest variant of ${scenario.name} found that is still ${final.outcome} at seed ${seed}: ${changes.join('; ')}.`;
  return { scenario: { ...best, name: `${scenario.name}-smallest`, summary, seed }, seed, changes, runs: search.runs, outcome: final.outcome };
}
