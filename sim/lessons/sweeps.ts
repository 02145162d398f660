import { InputError, type InputIssue } from '../errors.js';
import { sweepCommand as sweepCommandOf } from '../reproduce.js';
import { MAX_LAB_RUNS, MAX_LAB_VARIED } from '../odds/lab.js';
import { planSweep } from '../odds/plan.js';
import { parseVary, type Vary } from '../odds/range.js';
import { grouped } from '../scenario/limits.js';
import { normalizeScenario } from '../scenario/normalize.js';
import { BUILTIN_NAMES, BUILTIN_SCENARIOS } from '../scenarios/index.js';
import type { Sweep } from './types.js';

/*
 * A lesson's sweep is checked by the sweep's own code, not a copy of its
 * rules: each varied field is read by the parser `locklab sweep --vary` uses,
 * and the grid is planned as `locklab sweep` plans it, which applies every
 * point's values to the scenario exactly as `--set` would. What the lab adds
 * is its own size: the Odds view varies at most two fields and runs at most
 * MAX_LAB_RUNS in all. So a sweep that passes opens a form the Odds view
 * runs, and prints a command `locklab sweep` runs.
 */

/** What is wrong with a sweep, each issue at its field inside the sweep (`scenario`, `vary[1]`, `runs`). */
export function sweepIssues(sweep: Sweep): InputIssue[] {
  const issues: InputIssue[] = [];
  const raw = BUILTIN_SCENARIOS[sweep.scenario];
  if (raw === undefined)
    issues.push({
      path: 'scenario',
      message: `names no built-in scenario (the Odds view's links open built-ins only); expected one of ${BUILTIN_NAMES.join(', ')}`,
    });
  if (sweep.vary.length > MAX_LAB_VARIED)
    issues.push({ path: 'vary', message: `varies ${sweep.vary.length} fields; the Odds view varies at most ${MAX_LAB_VARIED}` });
  const varies: Vary[] = [];
  sweep.vary.forEach((text, j) => {
    try {
      varies.push(parseVary(text, `vary[${j}]`));
    } catch (err) {
      if (!(err instanceof InputError)) throw err;
      for (const i of err.issues) issues.push({ path: `vary[${j}]`, message: i.path === '' ? i.message : `${i.path}: ${i.message}` });
    }
  });
  if (issues.length > 0 || raw === undefined) return issues;

  const points = varies.reduce((n, v) => n * v.values.length, 1);
  if (sweep.runs * points > MAX_LAB_RUNS)
    issues.push({
      path: 'runs',
      message: `is ${grouped(sweep.runs)} runs for each of ${grouped(points)} points, ${grouped(sweep.runs * points)} in all, more than the Odds view takes (${grouped(MAX_LAB_RUNS)})`,
    });
  try {
    planSweep({
      scenarioRef: sweep.scenario,
      base: normalizeScenario(raw, sweep.scenario),
      sets: [],
      varies,
      seeds: { from: 1, to: sweep.runs },
      codeVersion: 'lesson',
      batchSize: sweep.runs,
    });
  } catch (err) {
    if (!(err instanceof InputError)) throw err;
    for (const i of err.issues) {
      // The plan names a field by its path: the issue goes to the vary that gave it (the second, when a path is given twice).
      const at = varies.map((v, j) => (v.path === i.path ? j : -1)).filter((j) => j >= 0);
      const j = at.length > 1 ? at[at.length - 1] : at[0];
      issues.push(
        j === undefined
          ? { path: err.source === '--seeds' ? 'runs' : 'vary', message: i.path === '' ? i.message : `${i.path}: ${i.message}` }
          : { path: `vary[${j}]`, message: `${i.path}: ${i.message}` },
      );
    }
  }
  return issues;
}

/** The `locklab sweep` command that runs a lesson's sweep, each word quoted for a POSIX shell where it needs it. */
export function sweepCommand(sweep: Sweep): string {
  return sweepCommandOf(sweep.scenario, { runs: sweep.runs, vary: sweep.vary });
}
