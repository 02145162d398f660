import { grouped } from '../scenario/limits.js';
import { formatDuration } from '../time.js';
import { counted, percent2 as pct2 } from '../words.js';
import type { SweepAggregate } from './aggregate.js';
import { runCommand as reproduceCommand } from '../reproduce.js';
import { showValue } from './range.js';
import type { Tally } from './tally.js';
import { clusteredWilson, wilson, type ClusteredShare, type Share } from './wilson.js';

/*
 * The sweep's result as data (JSON), as a table (CSV) and as text. Nothing
 * here depends on how many workers ran or in which order batches finished:
 * the same sweep always prints the same bytes.
 */

export const SWEEP_SCHEMA = 'locklab.sweep/1';

/** One failing run of a combination, with the command that replays it. */
export interface FailingRun {
  readonly seed: number;
  readonly outcome: 'unsafe' | 'double-ownership';
  readonly command: string;
}

export interface ComboReport {
  readonly params: Record<string, unknown>;
  readonly scenarioHash: string;
  readonly runs: number;
  readonly unsafe: Share;
  readonly fenced: Share;
  readonly doubleOwnership: Share;
  /**
   * Lock cycles (k of n: from an acquisition's success until its client
   * stopped believing) during which another client also believed it held
   * the lock, over every run; the interval allows for the cycles of one run
   * failing together (see clusteredWilson).
   */
  readonly doubleOwnedCycles: ClusteredShare;
  readonly lostLock: Share;
  /** Runs with some lock-out time. */
  readonly lockout: Share;
  /** Lock-out time per run, averaged over every run, in microseconds (integer division: exact and the same everywhere). */
  readonly lockoutMeanUs: number;
  readonly lockoutMaxUs: number;
  readonly budgetStops: number;
  /** The smallest unsafe seeds, then the smallest seeds with double ownership that were not unsafe, up to five. */
  readonly failing: readonly FailingRun[];
}

export interface SweepReport {
  readonly schema: typeof SWEEP_SCHEMA;
  readonly scenario: string;
  readonly scenarioName: string;
  readonly codeVersion: string;
  readonly seeds: { readonly from: number; readonly to: number };
  readonly sets: readonly string[];
  readonly vary: ReadonlyArray<{ readonly path: string; readonly values: readonly unknown[] }>;
  /** True when the sweep was stopped before every batch was counted. */
  readonly partial: boolean;
  readonly runs: number;
  readonly combinations: readonly ComboReport[];
}

function failing(ref: string, sets: readonly string[], t: Tally): FailingRun[] {
  const out: FailingRun[] = t.unsafeSeeds.map((seed) => ({ seed, outcome: 'unsafe' as const, command: reproduceCommand(ref, seed, sets) }));
  for (const seed of t.doubleSeeds) {
    if (out.length >= 5) break;
    if (!t.unsafeSeeds.includes(seed)) out.push({ seed, outcome: 'double-ownership', command: reproduceCommand(ref, seed, sets) });
  }
  return out;
}

export function comboReport(ref: string, sets: readonly string[], params: Record<string, unknown>, scenarioHash: string, t: Tally): ComboReport {
  return {
    params,
    scenarioHash,
    runs: t.runs,
    unsafe: wilson(t.unsafe, t.runs),
    fenced: wilson(t.fenced, t.runs),
    doubleOwnership: wilson(t.doubleOwnership, t.runs),
    doubleOwnedCycles: clusteredWilson({
      k: t.doubleOwnedCycles,
      n: t.cycles,
      clusters: t.runs,
      nSq: t.cyclesSq,
      kSq: t.doubleOwnedSq,
      nk: t.cyclesByDoubleOwned,
    }),
    lostLock: wilson(t.lostLock, t.runs),
    lockout: wilson(t.lockout, t.runs),
    lockoutMeanUs: t.runs === 0 ? 0 : Math.floor(t.lockoutUs / t.runs),
    lockoutMaxUs: t.lockoutMaxUs,
    budgetStops: t.budgetStops,
    failing: failing(ref, sets, t),
  };
}

export function sweepReport(agg: SweepAggregate, scenarioName: string): SweepReport {
  const plan = agg.plan;
  return {
    schema: SWEEP_SCHEMA,
    scenario: plan.scenarioRef,
    scenarioName,
    codeVersion: plan.codeVersion,
    seeds: plan.seeds,
    sets: plan.sets,
    vary: plan.varies.map((v) => ({ path: v.path, values: v.values })),
    partial: !agg.complete,
    runs: agg.seedsDone,
    combinations: plan.combinations.map((c) =>
      comboReport(plan.scenarioRef, c.sets, Object.fromEntries(c.params.map((p) => [p.path, p.value])), c.scenarioHash, agg.tally(c.index)),
    ),
  };
}

export function reportJson(r: SweepReport): string {
  return `${JSON.stringify(r, null, 2)}\n`;
}

/** RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. */
function csvField(v: string): string {
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

const SHARES = ['unsafe', 'fenced', 'doubleOwnership', 'lostLock', 'lockout'] as const;

/**
 * One row per combination: the varied values, then each share of runs as
 * count, rate and interval, then the lock cycles with the double-owned ones,
 * their rate, interval and design effect, then lock-out times and the first
 * failing run with the command that reproduces it.
 */
export function reportCsv(r: SweepReport): string {
  const head = [
    ...r.vary.map((v) => v.path),
    'runs',
    ...SHARES.flatMap((s) => [`${s}_runs`, `${s}_rate`, `${s}_lo95`, `${s}_hi95`]),
    'cycles',
    'doubleOwnedCycles',
    'doubleOwnedCycles_rate',
    'doubleOwnedCycles_lo95',
    'doubleOwnedCycles_hi95',
    'doubleOwnedCycles_deff',
    'lockout_mean_us',
    'lockout_max_us',
    'budget_stops',
    'first_failing_seed',
    'reproduce',
  ];
  const rows = r.combinations.map((c) => [
    ...r.vary.map((v) => showValue(c.params[v.path])),
    String(c.runs),
    ...SHARES.flatMap((s) => [String(c[s].k), String(c[s].p), String(c[s].lo), String(c[s].hi)]),
    String(c.doubleOwnedCycles.n),
    String(c.doubleOwnedCycles.k),
    String(c.doubleOwnedCycles.p),
    String(c.doubleOwnedCycles.lo),
    String(c.doubleOwnedCycles.hi),
    String(c.doubleOwnedCycles.deff),
    String(c.lockoutMeanUs),
    String(c.lockoutMaxUs),
    String(c.budgetStops),
    c.failing[0] === undefined ? '' : String(c.failing[0].seed),
    c.failing[0]?.command ?? '',
  ]);
  return [head, ...rows].map((row) => row.map(csvField).join(',')).join('\n') + '\n';
}

/** A share as people read it: "12.3 % (11.9–12.8)". */
export function formatShare(s: Share): string {
  const pct = (x: number): string => {
    const v = x * 100;
    if (v === 0 || v === 100) return String(v);
    // Enough digits that a bound near 0 or 100 never reads as exactly 0 or 100.
    if (v < 0.1) return v.toPrecision(2);
    if (v > 99.9) return Math.min(99.99, Number(v.toFixed(2))).toFixed(2);
    return v.toFixed(1);
  };
  return `${pct(s.p)} % (${pct(s.lo)}–${pct(s.hi)})`;
}

/** "about 1 in 560": the inverse of a small share, to two significant digits; empty for a share above one in five, where a percentage says it better. */
function oneIn(p: number): string {
  if (p <= 0 || p > 0.2) return '';
  const n = 1 / p;
  const step = 10 ** Math.max(0, Math.floor(Math.log10(n)) - 1);
  return `, about 1 in ${grouped(Math.round(n / step) * step)}`;
}

/**
 * A share of lock cycles as people read it: "0.18 % of 120,000 lock cycles
 * (0.12–0.26), about 1 in 560", or "none of 120,000 lock cycles (at most
 * 0.0032 %)". Small shares keep two significant digits: one decimal of a
 * percent would read 0.18 % as 0.2 %.
 */
export function formatCycles(s: ClusteredShare): string {
  const of = counted(s.n, 'lock cycle', { show: grouped });
  if (s.k === 0) return s.n === 0 ? 'no lock cycle' : `none of ${of} (at most ${pct2(s.hi)} %)`;
  return `${pct2(s.p)} % of ${of} (${pct2(s.lo)}–${pct2(s.hi)})${oneIn(s.p)}`;
}

/** A share of lock cycles in a table cell, as formatShare gives a share of runs but to two significant digits: "0.18 % (0.12–0.26)". */
export function formatCyclesShort(s: ClusteredShare): string {
  return `${pct2(s.p)} % (${pct2(s.lo)}–${pct2(s.hi)})`;
}

/** "1 run", "15,000 runs": digits grouped, as every count of runs the CLI and the lab print. */
export function runs(n: number): string {
  return counted(n, 'run', { show: grouped });
}

/** What the text report's figures count, under its first line: a share is of whole runs, not of lock cycles, and each measure is said once. */
export const TEXT_KEY: readonly string[] = [
  'Shares of runs, with Wilson 95 % intervals. A run is the whole scenario, every lock cycle of every client, and counts once however often it broke:',
  "  unsafe                  a stale write (the writer's lock had ended or gone to a newer holder) was accepted by the resource",
  '  fenced                  stale writes reached the resource and fencing refused every one',
  '  double ownership        two clients believed they held the same lock at the same true time, whether or not both wrote',
  '  double-owned cycles     a share of lock cycles, not of runs: those during which another client also believed it held the lock',
  '  lost lock               the store dropped a lock (expiry, deletion, restart) while its client still believed it held it',
  '  locked out for nothing  the store kept a lock for an owner that had crashed or stopped using it, keeping the others out',
];

/** The report as text: one block per combination, the failing seeds with their commands. */
export function reportText(r: SweepReport): string {
  const lines: string[] = [];
  const seeds = r.seeds.from === r.seeds.to ? `seed ${r.seeds.from}` : `seeds ${r.seeds.from}..${r.seeds.to}`;
  lines.push(
    `${r.scenarioName} · ${seeds} · ${counted(r.combinations.length, 'combination')} · ${runs(r.runs)}${r.partial ? ' · PARTIAL (stopped early)' : ''}`,
  );
  lines.push(...TEXT_KEY);
  for (const c of r.combinations) {
    lines.push('');
    const label = Object.entries(c.params)
      .map(([k, v]) => `${k}=${showValue(v)}`)
      .join(' ');
    lines.push(label === '' ? runs(c.runs) : `${label} · ${runs(c.runs)}`);
    lines.push(`  unsafe (stale write accepted)  ${formatShare(c.unsafe)}`);
    lines.push(`  fenced (stale writes refused)  ${formatShare(c.fenced)}`);
    lines.push(`  double ownership               ${formatShare(c.doubleOwnership)}`);
    lines.push(`    double-owned cycles          ${formatCycles(c.doubleOwnedCycles)}`);
    lines.push(`  lost lock                      ${formatShare(c.lostLock)}`);
    lines.push(
      `  locked out for nothing         ${formatShare(c.lockout)}, ${formatDuration(c.lockoutMeanUs)} a run on average, at most ${formatDuration(c.lockoutMaxUs)}`,
    );
    if (c.budgetStops > 0) lines.push(`  ${runs(c.budgetStops)} stopped at their budget`);
    for (const f of c.failing.slice(0, 3)) lines.push(`  ${f.outcome === 'unsafe' ? 'unsafe' : 'double ownership'} at seed ${f.seed}: ${f.command}`);
  }
  return `${lines.join('\n')}\n`;
}
