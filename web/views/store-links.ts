/** A link that opens a built-in scenario (with overrides) in the Lab; built-in names need no compression, so it is synchronous. */
export function buildLinkSync(builtin: string, sets: readonly string[] = []): string {
  const p = new URLSearchParams({ s: builtin });
  for (const o of sets) p.append('set', o);
  return `#/lab?${p.toString()}`;
}
