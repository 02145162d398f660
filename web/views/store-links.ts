/** A link that opens a built-in scenario in the Lab; built-in names need no compression, so it is synchronous. */
export function buildLinkSync(builtin: string): string {
  return `#/lab?${new URLSearchParams({ s: builtin }).toString()}`;
}
