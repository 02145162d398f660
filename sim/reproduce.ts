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

/** The `locklab sweep` command that runs `ref`, with the same overrides, over the sweep's default 1,000 seeds. */
export function sweepCommand(ref: string, overrides: readonly Override[]): string {
  return ['locklab sweep', shellQuote(ref), '--seeds 1..1000', ...overrides.map((o) => `--set ${shellQuote(overrideText(o))}`)].join(' ');
}

/**
 * Whether the scenario's faults are drawn at random (a client's pauses after
 * acquiring, its crashes at a rate): then one seed is one draw of them, and
 * a safe run says little about how often the lock fails.
 */
export function hasRandomFaults(scenario: Pick<Scenario, 'clients'>): boolean {
  return scenario.clients.some((c) => (c.pauseAfterAcquire !== undefined && c.pauseAfterAcquire.probability > 0) || (c.crashRatePerS ?? 0) > 0);
}
