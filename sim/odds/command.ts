/** Quotes a word for a POSIX shell only when it needs it. */
export function shellWord(s: string): string {
  return /^[\w./:=@,+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The exact `locklab run` command that reproduces one run of a sweep. */
export function reproduceCommand(scenarioRef: string, seed: number, sets: readonly string[]): string {
  return ['locklab run', shellWord(scenarioRef), `--seed ${seed}`, ...sets.map((s) => `--set ${shellWord(s)}`)].join(' ');
}
