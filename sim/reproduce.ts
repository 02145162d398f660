import type { Override } from './scenario/set.js';

/** Quotes a word for a POSIX shell when it needs it. */
export function shellQuote(word: string): string {
  return /^[\w./:=@,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** An override as `locklab run --set` takes it: strings bare, everything else as JSON. */
export function overrideText(o: Override): string {
  return `${o.path}=${typeof o.value === 'string' ? o.value : JSON.stringify(o.value)}`;
}

/** The `locklab run` command that reproduces a run of `ref` (a built-in name or a file) with `seed` and overrides. */
export function reproduceCommand(ref: string, seed: number, overrides: readonly Override[]): string {
  return ['locklab run', shellQuote(ref), `--seed ${seed}`, ...overrides.map((o) => `--set ${shellQuote(overrideText(o))}`)].join(' ');
}
