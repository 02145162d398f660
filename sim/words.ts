/**
 * A count and its noun, in the singular for one: "1 run", "2 runs",
 * "0 keys". `plural` for nouns that do not just take an s ("batches");
 * `show` writes the number (`grouped`: "475,768").
 */
export function counted(n: number, noun: string, how: { readonly plural?: string; readonly show?: (n: number) => string } = {}): string {
  return `${(how.show ?? String)(n)} ${n === 1 ? noun : (how.plural ?? `${noun}s`)}`;
}
