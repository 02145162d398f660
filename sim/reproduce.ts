import type { Scenario } from './scenario/types.js';
import type { Override } from './scenario/set.js';

/** Quotes a word for a POSIX shell when it needs it. */
export function shellQuote(word: string): string {
  return /^[\w./:=@,+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** An override as `locklab run --set` takes it: strings bare, everything else as JSON. */
export function overrideText(o: Override): string {
  return `${o.path}=${typeof o.value === 'string' ? o.value : JSON.stringify(o.value)}`;
}

/** The `locklab run` command that reproduces a run of `ref` (a built-in name or a file) with `seed` and overrides. */
export function reproduceCommand(ref: string, seed: number, overrides: readonly Override[]): string {
  return runCommand(ref, seed, overrides.map(overrideText));
}

/** The same, with the overrides as `--set` takes them (a sweep's `sets`). */
export function runCommand(ref: string, seed: number, sets: readonly string[]): string {
  return ['locklab run', shellQuote(ref), `--seed ${seed}`, ...sets.map((s) => `--set ${shellQuote(s)}`)].join(' ');
}

/**
 * The `locklab sweep` command that runs `ref` over seeds 1..`runs` (the
 * sweep's default 1,000 when not given), with `--set`s and `--vary`s as
 * they take them, each word quoted for a POSIX shell where it needs it.
 */
export function sweepCommand(ref: string, how: { readonly runs?: number; readonly sets?: readonly string[]; readonly vary?: readonly string[] } = {}): string {
  return [
    'locklab sweep',
    shellQuote(ref),
    `--seeds 1..${how.runs ?? 1000}`,
    ...(how.sets ?? []).map((s) => `--set ${shellQuote(s)}`),
    ...(how.vary ?? []).map((v) => `--vary ${shellQuote(v)}`),
  ].join(' ');
}

/**
 * Whether the scenario's faults are drawn at random (a client's pauses after
 * acquiring, its crashes at a rate): then one seed is one draw of them, and
 * a safe run says little about how often the lock fails.
 */
export function hasRandomFaults(scenario: Pick<Scenario, 'clients'>): boolean {
  return scenario.clients.some((c) => (c.pauseAfterAcquire !== undefined && c.pauseAfterAcquire.probability > 0) || (c.crashRatePerS ?? 0) > 0);
}
